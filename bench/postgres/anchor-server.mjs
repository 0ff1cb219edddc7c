// The hand-written anchor for bench/postgres: the smallest reasonable node:http + pg server
// for the bench's `Note` table — POST /api/notes is one `INSERT … RETURNING` per request (no
// transaction of its own, so one round trip; durable: synchronous_commit stays on), GET
// /api/notes/:id one SELECT, over a pool of the same size as wo's. No validation, no operation
// layer, no change events. Prints its URL like `wo run` does.
//
// usage: node bench/postgres/anchor-server.mjs <postgres url> <table> <REST path> [pool size]
import { createServer } from "node:http";
import pg from "pg";

const [url, table, path, poolSize = "10"] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: Number(poolSize) });
pool.on("error", () => undefined);
const insert = {
  name: "anchor_insert",
  text: `INSERT INTO "${table}" ("title", "body") VALUES ($1, $2) RETURNING *`,
};
const byId = { name: "anchor_get", text: `SELECT * FROM "${table}" WHERE "id" = $1` };

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer(async (req, res) => {
  try {
    if (req.method === "POST" && req.url === path) {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const { title, body } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const r = await pool.query({ ...insert, values: [title, body] });
      return send(res, 201, r.rows[0]);
    }
    const m = req.method === "GET" && new RegExp(`^${path}/(\\d+)$`).exec(req.url ?? "");
    if (m) {
      const r = await pool.query({ ...byId, values: [Number(m[1])] });
      return r.rows[0] ? send(res, 200, r.rows[0]) : send(res, 404, { error: "not found" });
    }
    send(res, 404, { error: "not found" });
  } catch (err) {
    send(res, 500, { error: String(err?.message ?? err) });
  }
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`anchor serving at http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
