// `me` (spec/rest.md "me", spec/mcp.md): `GET P/me` and the tool `t_me` answer the caller's own
// row, the one whose id is `$session.user`. In process with a principal (as the HTTP edge
// passes it), and over a real `wo run` as the owner, who has no user id.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { anonymousPrincipal, ownerPrincipal, type Principal } from "../../model/principal.js";
import type { OperationError } from "../../model/errors.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { mcpClient } from "../methods/wo-process.js";
import { withInProcessApp } from "./in-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const app = `
type Member {
  name: Text
  service rest "/api/members" expose list, get, create, me
  service mcp "/mcp" expose list, get, create, me
}
`;
const as = (user: string | null): Principal => ({ name: "agent", user, role: null, via: "token" });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as OperationError,
  );

describe("me in process, as a principal", () => {
  it("answers the row whose id is the caller's user; 404 when there is none; 401 for anonymous", async () => {
    await withInProcessApp({ "app.wo": app }, async ({ call, app: served }) => {
      await call("member_create", { name: "Ada" });
      const bo = await call("member_create", { name: "Bo" });
      expect(await call("member_me", {}, { principal: as(String(bo.id)) })).toEqual(bo);

      const missing = await refusal(call("member_me", {}, { principal: as("99") }));
      expect(missing).toMatchObject({ kind: "not_found" });
      const notAnId = await refusal(call("member_me", {}, { principal: as("ada@example.com") }));
      expect(notAnId?.message).toBe(
        'No Member has the caller\'s user id "ada@example.com": ids are positive integers.',
      );
      const owner = await refusal(call("member_me", {}, { principal: ownerPrincipal }));
      expect(owner).toMatchObject({ kind: "not_found" });
      expect(owner?.message).toContain("has no user id");
      const anonymous = await refusal(call("member_me", {}, { principal: anonymousPrincipal }));
      expect(anonymous).toMatchObject({ kind: "unauthorized" });
      // It takes no input at all.
      expect(await refusal(call("member_me", { id: 1 }, { principal: as("1") }))).toMatchObject({
        kind: "invalid_input",
      });

      // REST: the route is GET P/me, declared before P/:id; with no principal (the owner) 404.
      const res = await served.hono.request("/api/members/me");
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toContain("The caller (owner) has no user id");
    });
  });
});

describe("me over a real wo run, as the owner", () => {
  let dir: string;
  let wo: WoProcess;
  let mcp: Client;
  beforeAll(async () => {
    dir = writeApp("me", { "app.wo": app });
    wo = await startWo([dir, "--listen", "127.0.0.1:0"]);
    mcp = await mcpClient(wo.url);
  });
  afterAll(async () => {
    await mcp?.close();
    await wo?.stop();
    if (dir) removeApp(dir);
  });

  it("the tool member_me takes no input and is read-only; the owner gets a tool error saying why", async () => {
    const { tools } = await mcp.listTools();
    const me = tools.find((t) => t.name === "member_me")!;
    expect(me.inputSchema).toMatchObject({ type: "object", properties: {} });
    expect(me.annotations).toMatchObject({ readOnlyHint: true });
    expect(me.description).toContain("$session.user");
    const r = await mcp.callTool({ name: "member_me", arguments: {} });
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0]!.text).toContain("has no user id");
  });

  it("GET /api/members/me is not taken for an id", async () => {
    const res = await fetch(`${wo.url}/api/members/me`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { type: string }).type).toBe("urn:wo:problem:not-found");
    expect((await fetch(`${wo.url}/api/members/1`)).status).toBe(404);
  });
});
