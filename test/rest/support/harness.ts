// Test support for REST: a build folder from a hand-made catalog (emitters + the build's own
// TypeScript compiler, no parser needed), a real SQLite store in a temp dir, the app on a real
// 127.0.0.1 socket, and a full database dump to prove "nothing changed".
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import type { Catalog } from "../../../compiler/catalog.js";
import { ts } from "ts-morph";
import { compileTypeScript } from "../../../compiler/build.js";
import { buildInfoFileName, buildInfoText } from "../../../compiler/build-info.js";
import { emitBuild } from "../../../compiler/emit/index.js";
import { startServer, type RunningServer } from "../../../runtime/server.js";

export function tempDir(prefix = "wo-rest-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeBuild(catalog: Catalog, outDir: string): void {
  const emitted = emitBuild(catalog);
  const info = { path: buildInfoFileName, text: buildInfoText("built by the test harness", []) };
  for (const f of [...emitted, ...compileTypeScript(emitted, ts), info]) {
    const path = join(outDir, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.text);
  }
}

/**
 * `node bin/wo.js run` on a copy of an app folder, over a fresh data folder: the real CLI,
 * the real socket, the real SQLite file.
 */
export async function serveApp(appDir: string): Promise<Served> {
  const { copyApp, removeApp, startWo } = await import("../../support/wo-process.js");
  const dir = copyApp(appDir);
  const data = join(dir, ".data");
  const p = await startWo([dir, "--listen", "127.0.0.1:0", "--db", data]);
  return {
    url: p.url,
    dir,
    dbFile: join(data, "app.sqlite"),
    async stop() {
      await p.stop();
    },
    async dispose() {
      await p.stop();
      removeApp(dir);
    },
  };
}

/** A server to send requests to; serveApp's runs in a `wo run` process, so it cannot reload. */
export interface Served extends Omit<RunningServer, "reload" | "inputHash"> {
  dir: string;
  dbFile: string;
  dispose(): Promise<void>;
}

/** Builds `catalog` into a temp dir and serves it on 127.0.0.1:0 over a fresh database. */
export async function serveCatalog(catalog: Catalog): Promise<Served> {
  const dir = tempDir();
  writeBuild(catalog, join(dir, "build"));
  const server = await startServer({
    appDir: dir,
    buildDir: join(dir, "build"),
    listen: "127.0.0.1:0",
    db: join(dir, "data"),
    out: () => {},
  });
  return {
    ...server,
    dir,
    dbFile: join(dir, "data", "app.sqlite"),
    async dispose() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every row of every table (wo's own metadata included), as text: equal dumps, equal data. */
export function dumpDatabase(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // The audit trail records refused calls too (spec/operations.md, "Audit trail"): it is not
    // the app's data, which is what "nothing changed" is about.
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> '_wo_audit' ORDER BY name")
      .all() as {
      name: string;
    }[];
    const parts = tables.map(({ name }) => {
      const rows = db
        .prepare(
          name === "sqlite_sequence"
            ? "SELECT * FROM sqlite_sequence WHERE name <> '_wo_audit' ORDER BY rowid"
            : `SELECT * FROM "${name.replace(/"/g, '""')}" ORDER BY rowid`,
        )
        .all();
      return `${name}: ${JSON.stringify(rows)}`;
    });
    const seq = db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").get()
      ? JSON.stringify(db.prepare("SELECT * FROM sqlite_sequence WHERE name <> '_wo_audit' ORDER BY name").all())
      : "";
    return [...parts, seq].join("\n");
  } finally {
    db.close();
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function send(
  base: string,
  method: string,
  path: string,
  init: { body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await fetch(base + path, {
    method,
    headers: init.headers ?? {},
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  // A live stream (text/event-stream) never ends by itself: its answer is the status and headers.
  if (res.headers.get("content-type") === "text/event-stream") {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, text: "", json: undefined };
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function sendJson(base: string, method: string, path: string, body: unknown): Promise<Reply> {
  return send(base, method, path, { body: JSON.stringify(body), headers: { "content-type": "application/json" } });
}
