// Per-caller tool lists across a reload (spec/policies.md, "Tools a caller is shown"): a real
// `wo run --watch` of an app with policy lines, two named tokens listening over 2026-07-28
// `subscriptions/listen`. An edit that changes only a policy line still tells every listener
// that the tools changed, and each then lists its own tools under the new build.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { waitFor } from "../live/support.js";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { addToken, clientV2, ownerEnv, pressApp, toolNames } from "./support.js";

// Each start and each edit runs a build in a worker: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("wo run --watch: tools/list_changed per caller after a policy edit", () => {
  let appDir: string;
  let wo: WoProcess;
  let editor: string;
  let reader: string;
  beforeAll(async () => {
    appDir = writeApp("press-watch", pressApp);
    editor = await addToken(["editor", appDir, "--role", "editor", "--user", "7"]);
    reader = await addToken(["reader", appDir, "--role", "reader", "--user", "9"]);
    wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch"], { env: ownerEnv });
  });
  afterAll(async () => {
    await wo?.stop();
    if (appDir) removeApp(appDir);
  });

  it("both listeners are told; the reader's list gains post_create, the editor's stays the same", async () => {
    const ed = await clientV2(wo.url, editor);
    const rd = await clientV2(wo.url, reader);
    try {
      const told = { ed: 0, rd: 0 };
      ed.setNotificationHandler("notifications/tools/list_changed", () => void told.ed++);
      rd.setNotificationHandler("notifications/tools/list_changed", () => void told.rd++);
      await ed.listen({ toolsListChanged: true });
      await rd.listen({ toolsListChanged: true });
      const editorsBefore = await toolNames(ed);
      expect(await toolNames(rd)).not.toContain("post_create");

      // Only a policy line changes: the tools themselves are the same.
      const source = pressApp["app.wo"].replace(
        "  policy delete for role editor",
        "  policy write for role reader when author == $session.user\n  policy delete for role editor",
      );
      expect(source).not.toBe(pressApp["app.wo"]);
      writeFileSync(join(appDir, "app.wo"), source);
      await waitFor(
        () => told.ed === 1 && told.rd === 1,
        () => `told ${JSON.stringify(told)} after the edit; wo run printed:\n${wo.output()}`,
      );
      expect(await toolNames(rd)).toEqual(expect.arrayContaining(["post_create", "post_update", "post_publish"]));
      expect(await toolNames(rd)).not.toContain("post_delete");
      expect(await toolNames(ed)).toEqual(editorsBefore);
    } finally {
      await ed.close();
      await rd.close();
    }
  });
});
