// `wo run --watch` sees every save, however the editor writes it (spec/live.md, "Watching and
// hot swap"): by renaming a new file over the old one (JetBrains' safe write, gedit), by
// moving the old one away first (Emacs' backup), by `sed -i`, by deleting and creating, in a
// folder created after the start. Each way is followed by ten further saves, half of them
// in-place writes (what Node's recursive watcher on Linux misses once the file was renamed
// over) and half the same way again, and every save must reload: a real `wo run --watch`, a
// real `sed`, and the served /openapi.json as the proof. Editors' temp and backup files on
// the way reload nothing: each save prints exactly one `wo: reloaded:` line.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

// Eleven rebuilds per test, each in a worker: allow for a busy two-core machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

/** A type whose doc comment (every tool's description, spec/language.md) carries a revision. */
const typeText = (name: string, rev: number) => `-- ${name} rev ${rev}.
type ${name} {
  id: Id
  title: Text
  service rest "/api/${name.toLowerCase()}s" expose list, create
  service mcp "/mcp" expose list, create
}
`;

let appDir: string;
let wo: WoProcess;
beforeAll(async () => {
  appDir = writeApp("saves", { "note.wo": typeText("Note", 0) });
  wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--watch"]);
  // The watcher starts after the address is printed: a save before this line is not a test.
  while (!wo.output().includes("wo: watching ")) {
    if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${wo.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

const reloadLines = () => (wo.output().match(/wo: reloaded: /g) ?? []).length;
let saves = 0;

/** Saves `file` with `save` and waits until that save's revision serves; at most 60 s. */
async function saveAndSee(file: string, name: string, save: (path: string, text: string) => void): Promise<void> {
  const path = join(appDir, file);
  const rev = Number(/rev (\d+)\./.exec(readFileSync(path, "utf8"))![1]) + 1;
  save(path, typeText(name, rev));
  saves++;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (reloadLines() >= saves) {
      const openapi = await (await fetch(`${wo.url}/openapi.json`)).text();
      if (openapi.includes(`${name} rev ${rev}.`)) return;
    }
    if (wo.child.exitCode !== null) throw new Error(`wo run exited:\n${wo.output()}`);
    if (Date.now() > deadline)
      throw new Error(`save ${saves} (${name} rev ${rev}, ${save.name}) was not reloaded:\n${wo.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first save the editor's way, then ten more: in-place writes and that way, in turn. */
async function elevenSaves(file: string, name: string, save: (path: string, text: string) => void) {
  await saveAndSee(file, name, save);
  for (let i = 0; i < 10; i++) await saveAndSee(file, name, i % 2 === 0 ? inPlace : save);
  // One line per save: no temp file, backup or half-done rename reloaded anything on its own.
  expect(reloadLines()).toBe(saves);
}

function inPlace(path: string, text: string) {
  writeFileSync(path, text);
}

/** JetBrains' safe write: a temp file beside it, the original moved aside, the temp renamed in. */
function safeWrite(path: string, text: string) {
  writeFileSync(`${path}___jb_tmp___`, text);
  renameSync(path, `${path}___jb_old___`);
  renameSync(`${path}___jb_tmp___`, path);
  unlinkSync(`${path}___jb_old___`);
}

/** Emacs' first save: the original becomes the backup `name~`, the new text a new file. */
function backupThenWrite(path: string, text: string) {
  renameSync(path, `${path}~`);
  writeFileSync(path, text);
}

/** `sed -i`, which writes a temp file in the folder and renames it over the original. */
function sedInPlace(path: string, text: string) {
  const rev = /rev (\d+)\./.exec(text)![1];
  execFileSync("sed", ["-i", `s/rev [0-9]*\\./rev ${rev}./`, path]);
}

function deleteAndCreate(path: string, text: string) {
  unlinkSync(path);
  writeFileSync(path, text);
}

/** gedit's way: a hidden temp file in the same folder, moved over the original. */
function tempMovedOver(path: string, text: string) {
  const temp = join(path, "..", ".goutputstream-W0SAVE");
  writeFileSync(temp, text);
  renameSync(temp, path);
}

describe("wo run --watch sees every save", () => {
  it("JetBrains' safe write (temp file renamed over the original), then ten more saves", async () => {
    await elevenSaves("note.wo", "Note", safeWrite);
  });

  it("Emacs' backup-then-write (the original renamed to note.wo~), then ten more saves", async () => {
    await elevenSaves("note.wo", "Note", backupThenWrite);
  });

  it("sed -i, then ten more saves", async () => {
    await elevenSaves("note.wo", "Note", sedInPlace);
  });

  it("delete and create again, then ten more saves", async () => {
    await elevenSaves("note.wo", "Note", deleteAndCreate);
  });

  it("a temp file written in the folder and moved over, then ten more saves", async () => {
    await elevenSaves("note.wo", "Note", tempMovedOver);
  });

  it("a folder created after the start, removed and created again: its files' saves reload too", async () => {
    mkdirSync(join(appDir, "more"));
    writeFileSync(join(appDir, "more", "tag.wo"), typeText("Tag", 0));
    saves++;
    await expect.poll(reloadLines, { timeout: 60_000, interval: 50 }).toBe(saves);
    await elevenSaves("more/tag.wo", "Tag", safeWrite);
    // The folder goes (its type with it; no row was stored, so the migration may drop it) …
    rmSync(join(appDir, "more"), { recursive: true });
    saves++;
    await expect.poll(reloadLines, { timeout: 60_000, interval: 50 }).toBe(saves);
    expect(await (await fetch(`${wo.url}/openapi.json`)).text()).not.toContain("Tag rev");
    // … and comes back: a new folder under the old name, watched afresh.
    mkdirSync(join(appDir, "more"));
    writeFileSync(join(appDir, "more", "tag.wo"), typeText("Tag", 100));
    saves++;
    await expect.poll(reloadLines, { timeout: 60_000, interval: 50 }).toBe(saves);
    await elevenSaves("more/tag.wo", "Tag", sedInPlace);
  });
});
