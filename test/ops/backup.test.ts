// `wo backup` / `wo restore` end to end: a backup taken while `wo run` serves a steady write
// load restores to a consistent state holding every write acknowledged before the backup
// began; restore is refused while wo run holds the data folder, and refuses files that are
// not wo databases.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { removeApp, repoRoot, startWo, tempDir, writeApp } from "../support/wo-process.js";

function wo(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(repoRoot, "bin/wo.js"), ...args], { cwd: repoRoot });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end();
  return new Promise((res) => child.on("close", (code) => res({ code, stdout, stderr })));
}

function ids(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    return (db.prepare(`SELECT id FROM "item" ORDER BY id`).all() as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

let appDir: string;
beforeAll(async () => {
  appDir = writeApp("backup", {
    "wo.toml": 'name = "backup"\n',
    "app.wo": 'type Item {\n  n: Int\n  note: Text\n  service rest "/api/items" expose list, get, create\n}\n',
  });
  // Built once, so the timed part below measures the backup, not the first build.
  expect((await wo(["build", appDir])).code).toBe(0);
}, 120_000);
afterAll(() => {
  if (appDir) removeApp(appDir);
});

it("a backup under a concurrent write load holds every write acknowledged before it began, and restores", async () => {
  const data = tempDir("wo-backup-data-");
  const backups = tempDir("wo-backup-out-");
  const file = join(backups, "app.backup.sqlite");
  let server = await startWo([appDir, "--db", data, "--listen", "127.0.0.1:0", "--quiet"]);
  const acknowledged: { id: number; at: number }[] = [];
  let writing = true;
  const writer = async (w: number) => {
    for (let i = 0; writing; i++) {
      const res = await fetch(`${server.url}/api/items`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n: i, note: `writer ${w} ${"x".repeat(200)}` }),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: number };
      acknowledged.push({ id, at: performance.now() });
    }
  };
  try {
    const writers = [0, 1, 2, 3].map(writer);
    while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 20));
    const began = performance.now();
    const backup = await wo(["backup", file, appDir, "--db", data]);
    const ended = performance.now();
    const duringBackup = acknowledged.filter((a) => a.at > began && a.at < ended).length;
    writing = false;
    await Promise.all(writers);
    expect(backup.stderr).not.toContain("wo backup:");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/^backed up .*app\.sqlite to .*app\.backup\.sqlite \(\d+ bytes\)\n$/);
    // The load went on while the backup ran (else this proves nothing about a live backup).
    expect(duringBackup).toBeGreaterThan(0);

    const before = acknowledged.filter((a) => a.at < began).map((a) => a.id);
    const saved = ids(file);
    for (const id of before) expect(saved).toContain(id);
    // One committed state: ids are minted in commit order, so a snapshot holds exactly 1..k.
    expect(saved).toEqual(Array.from({ length: saved.length }, (_, i) => i + 1));
    expect(saved.length).toBeLessThan(acknowledged.length);
    expect(existsSync(`${file}-wal`)).toBe(false);

    // Refused while wo run holds the data folder; nothing replaced.
    const refused = await wo(["restore", file, appDir, "--db", data]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/in use by another wo process \(pid \d+\)/);
    await server.stop();
    expect(ids(join(data, "app.sqlite")).length).toBe(acknowledged.length);

    const restored = await wo(["restore", file, appDir, "--db", data]);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain("the database it replaced is kept as");
    expect(ids(join(data, "app.sqlite"))).toEqual(saved);
    expect(ids(join(data, "app.sqlite.before-restore")).length).toBe(acknowledged.length);

    // wo run serves the restored state, and new ids continue after it.
    server = await startWo([appDir, "--db", data, "--listen", "127.0.0.1:0", "--quiet"]);
    const res = await fetch(`${server.url}/api/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: 0, note: "after restore" }),
    });
    expect(((await res.json()) as { id: number }).id).toBe(saved.length + 1);
  } finally {
    writing = false;
    await server.stop();
  }
}, 180_000);

it("restore refuses a file that is not a wo database, and changes nothing", async () => {
  const data = tempDir("wo-restore-data-");
  const dir = tempDir("wo-restore-bad-");
  const text = join(dir, "notes.txt");
  writeFileSync(text, "not a database\n");
  const plain = join(dir, "plain.sqlite");
  const db = new Database(plain);
  db.exec("CREATE TABLE t (x)");
  db.close();
  const r1 = await wo(["restore", text, appDir, "--db", data]);
  expect(r1.code).toBe(1);
  expect(r1.stderr).toMatch(/notes\.txt is not a SQLite database wo can read/);
  const r2 = await wo(["restore", plain, appDir, "--db", data]);
  expect(r2.code).toBe(1);
  expect(r2.stderr).toMatch(/plain\.sqlite is a SQLite database, but not one of wo/);
  expect(existsSync(join(data, "app.sqlite"))).toBe(false);
  const missing = await wo(["backup", join(dir, "b.sqlite"), appDir, "--db", data]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/There is no database at .*app\.sqlite to back up/);
}, 60_000);

it("on PostgreSQL, backup and restore say to use pg_dump and pg_restore, and never show the password", async () => {
  const url = "postgres://wo:s3cret-pw@127.0.0.1:1/app";
  const backup = await wo(["backup", join(tempDir("wo-pg-backup-"), "b.dump"), appDir, "--db", url]);
  expect(backup.code).toBe(1);
  expect(backup.stderr).toMatch(
    /the database is PostgreSQL \(postgres:\/\/wo:\*\*\*@127\.0\.0\.1:1\/app\).*pg_dump --format=custom/,
  );
  const restore = await wo(["restore", join(tempDir("wo-pg-restore-"), "b.dump"), appDir, "--db", url]);
  expect(restore.code).toBe(1);
  expect(restore.stderr).toContain("pg_restore");
  expect(backup.stderr + restore.stderr).not.toContain("s3cret-pw");
}, 60_000);
