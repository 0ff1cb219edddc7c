// A REST live stream across a `wo run --watch` swap (spec/live.md, "Watching and hot swap";
// spec/architecture.md, "The runtime instance and its edge"): live streams belong to the runtime
// instance, not to the build, so a stream opened before an edit keeps receiving the events of
// writes made on the new build, and SIGTERM ends it at once: the shutdown does not wait out the
// 5 s drain for it. A real `wo run --watch` process, a real edit, a raw event-stream reader.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { openSse, post, waitFor } from "./support.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const note = (fields: string) => `type Note {
  id: Id
  title: Text
${fields}
  service rest "/api/notes" expose list, get, create, subscribe
}
`;

let appDir: string;
let wo: WoProcess;
beforeAll(async () => {
  appDir = writeApp("notes", { "note.wo": note("") });
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch"]);
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

describe("a REST live stream across a --watch swap", () => {
  it("keeps receiving events after the swap, and SIGTERM exits promptly", async () => {
    const stream = await openSse(wo.url, "/api/notes/live");
    expect(stream.status).toBe(200);
    await post(wo.url, "/api/notes", { title: "before" });
    await waitFor(
      () => stream.events.some((e) => e.event === "create"),
      () => `no create event before the swap:\n${stream.raw()}`,
    );

    writeFileSync(join(appDir, "note.wo"), note("  body: Text?"));
    // The rebuild runs in a worker: allow for a busy machine.
    while (!/wo: reloaded: /.test(wo.output())) {
      if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${wo.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The new build's field, written through the new build, arrives on the old stream.
    const after = await post(wo.url, "/api/notes", { title: "after", body: "new field" });
    await waitFor(
      () => stream.events.some((e) => e.event === "create" && e.data?.includes('"body":"new field"')),
      () => `no event for the write after the swap:\n${stream.raw()}`,
    );
    expect(JSON.parse(stream.events.at(-1)!.data!)).toMatchObject({ op: "create", id: after.id });
    expect(stream.ended()).toBe(false);

    const started = performance.now();
    const code = await wo.stop("SIGTERM");
    const ms = performance.now() - started;
    expect(code).toBe(0);
    // The drain bound is 5 s; a stream left to it would take all of that.
    expect(ms).toBeLessThan(3_000);
    await waitFor(
      () => stream.ended(),
      () => "the stream did not end",
    );
  });
});
