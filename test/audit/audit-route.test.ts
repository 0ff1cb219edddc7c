// GET /_wo/audit is the owner's (runtime/rest/audit-route.ts): the one check, mayReadAudit, is
// asked with the principal the edge resolved; any other principal gets 403 and reads nothing.

import { describe, expect, it } from "vitest";
import { anonymousPrincipal, ownerPrincipal, type Principal } from "../../model/principal.js";
import { createAuditRoutes, mayReadAudit } from "../../runtime/rest/audit-route.js";

const agent: Principal = { name: "ci", user: "7", role: "editor", via: "token" };

describe("GET /_wo/audit", () => {
  it("answers the owner (also when no principal is given) and refuses everyone else with 403", async () => {
    let reads = 0;
    const store = {
      readAudit: async () => {
        reads++;
        return { entries: [], more: false };
      },
    };
    for (const [principal, status] of [
      [undefined, 200],
      [ownerPrincipal, 200],
      [agent, 403],
      [anonymousPrincipal, 403],
    ] as const) {
      const app = createAuditRoutes({ store, principalOf: () => principal });
      const res = await app.request("/_wo/audit");
      expect(res.status).toBe(status);
      if (status === 403) expect(((await res.json()) as { type: string }).type).toBe("urn:wo:problem:forbidden");
    }
    expect(reads).toBe(2);
    expect([undefined, ownerPrincipal, agent, anonymousPrincipal].map(mayReadAudit)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
