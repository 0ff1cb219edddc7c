// `wo run --watch` (spec/live.md, "Watching and hot swap"): what a reload serves is what a clean
// `wo build` of the same sources makes. After saved edits, the watched build folder is compared
// file by file with `wo build --force --out` of the edited sources, by the same wo. The worker
// keeps the parses of unchanged files (compiler/parse-cache.ts): the last edit changes only
// tag.wo, which note.wo's Note refers to, and Note's tools must say so (tag_get reads its tag).
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeApp, repoRoot, startWo, tempDir, woNode, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const note = (fields: string) => `type Note {
  id: Id
  title: Text
  tag: ref Tag?
${fields}
  service rest "/api/notes" expose list, get, create, update
  service mcp "/mcp" expose list, get, create
}
`;

const tag = (mcp: string) => `type Tag {
  id: Id
  name: Text @unique
  service rest "/api/tags" expose list, create
${mcp}
}
`;

let appDir: string;
let wo: WoProcess;
beforeAll(async () => {
  appDir = writeApp("fresh", { "note.wo": note(""), "tag.wo": tag("") });
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch", "--quiet"]);
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

async function reloaded(count: number): Promise<void> {
  for (;;) {
    if ((wo.output().match(/wo: reloaded/g) ?? []).length >= count) return;
    if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${wo.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const filesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const path = join(e.parentPath, e.name);
        return [path.slice(dir.length + 1), readFileSync(path, "utf8")];
      }),
  );

it("after saved edits, the build it serves is byte for byte a clean build of the same sources", async () => {
  const edits: [string, string][] = [
    ["note.wo", note("  body: Text?")],
    ["note.wo", note("  body: Text?\n  stars: Int = 0")],
    ["tag.wo", tag('  service mcp "/mcp" expose get')],
  ];
  for (const [i, [file, text]] of edits.entries()) {
    await new Promise((r) => setTimeout(r, 300)); // the watcher is armed; one save, one reload
    writeFileSync(join(appDir, file), text);
    await reloaded(i + 1);
  }
  const clean = tempDir("wo-fresh-out-");
  try {
    const built = spawnSync(woNode, [join(repoRoot, "bin/wo.js"), "build", "--force", "--out", clean, appDir], {
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    const watched = filesOf(join(appDir, ".wo", "build"));
    const fresh = filesOf(clean);
    expect(Object.keys(watched).sort()).toEqual(Object.keys(fresh).sort());
    for (const path of Object.keys(fresh)) expect(watched[path], path).toBe(fresh[path]);
    // And it serves the edits: the new field is a filter of the list, and the referenced type's
    // change shows in the unchanged file's tools.
    expect((await fetch(`${wo.url}/api/notes?stars=1`)).status).toBe(200);
    expect(watched["manifest.json"]).toContain("tag_get reads it");
  } finally {
    rmSync(clean, { recursive: true, force: true });
  }
});
