// The hand-written baseline for bench/rest: the smallest reasonable hono + better-sqlite3
// server answering GET /api/posts/:id from the same SQLite file wo serves — one prepared
// statement, no validation, no operation layer. Prints its URL like `wo run` does.
//
// usage: node bench/rest/baseline.mjs <database file> <table>
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";

const [file, table] = process.argv.slice(2);
const db = new Database(file, { readonly: true, fileMustExist: true });
const byId = db.prepare(`SELECT * FROM "${table}" WHERE id = ?`);
const app = new Hono();
app.get(`/api/${table}/:id`, (c) => {
  const row = byId.get(Number(c.req.param("id")));
  return row ? c.json(row) : c.json({ error: "not found" }, 404);
});
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.stdout.write(`baseline serving at http://127.0.0.1:${info.port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
