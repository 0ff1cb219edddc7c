// A GET's JSON answer and a create's under `wo run` are written straight to node's response
// (runtime/rest/json-answer.ts): their bytes on the wire — status line, header names as
// spelled, their order, Content-Length — are the ones hono's `c.json` gave, and HEAD and CORS
// answers (which still take hono's Response) agree with them.

import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

const app = {
  "wo.toml": 'name = "answers"\n',
  "app.wo": `type Note {
  title: Text
  done: Bool = false
  service rest "/api/notes" expose list, get, create
}
`,
};

let appDir: string;
let wo: WoProcess;

beforeAll(async () => {
  appDir = writeApp("answers", app);
  wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
  const res = await fetch(`${wo.url}/api/notes`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "é ünïcode" }),
  });
  expect(res.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

/** The answer's head (Date masked) and body, as the bytes arrived, over a fresh connection. */
function raw(request: string): Promise<{ head: string; body: string }> {
  const { hostname, port } = new URL(wo.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = Buffer.alloc(0);
    socket.on("data", (d) => {
      data = Buffer.concat([data, d]);
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = data.subarray(0, end).toString("latin1");
      const length = /content-length: (\d+)/i.exec(head);
      const body = data.subarray(end + 4);
      if (!/^HEAD /.test(request) && length && body.length < Number(length[1])) return;
      socket.destroy();
      resolve({ head: head.replace(/\r\nDate: [^\r]+/, "\r\nDate: X"), body: body.toString("utf8") });
    });
    socket.on("error", reject);
  });
}

const host = () => `Host: ${new URL(wo.url).host}\r\n`;

describe("GET and create answers written straight to node's response", () => {
  it("a GET by id: c.json's status line, headers and order, and an exact Content-Length", async () => {
    const { head, body } = await raw(`GET /api/notes/1 HTTP/1.1\r\n${host()}\r\n`);
    expect(JSON.parse(body)).toEqual({ id: 1, title: "é ünïcode", done: false });
    expect(head).toBe(
      [
        "HTTP/1.1 200 OK",
        "x-content-type-options: nosniff",
        "Content-Type: application/json",
        "Date: X",
        "Connection: keep-alive",
        "Keep-Alive: timeout=5",
        `Content-Length: ${Buffer.byteLength(body)}`,
      ].join("\r\n"),
    );
  });

  it("a list answers the same way", async () => {
    const { head, body } = await raw(`GET /api/notes HTTP/1.1\r\n${host()}\r\n`);
    expect(JSON.parse(body).items).toHaveLength(1);
    expect(head).toMatch(
      /^HTTP\/1\.1 200 OK\r\nx-content-type-options: nosniff\r\nContent-Type: application\/json\r\n/,
    );
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}`);
  });

  it("HEAD has the GET's headers and no body; a CORS GET keeps its headers", async () => {
    const head = await raw(`HEAD /api/notes/1 HTTP/1.1\r\n${host()}\r\n`);
    expect(head.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head.head).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(head.body).toBe("");
    const cors = await raw(`GET /api/notes/1 HTTP/1.1\r\n${host()}Origin: http://localhost:3000\r\n\r\n`);
    expect(cors.head).toContain("\r\naccess-control-allow-origin: http://localhost:3000\r\n");
    expect(cors.head).toContain("\r\nvary: Origin\r\n");
    expect(JSON.parse(cors.body).id).toBe(1);
  });

  it("a create: the status line, headers and order @hono/node-server wrote for c.json(row, 201, { location })", async () => {
    const note = JSON.stringify({ title: "made" });
    const { head, body } = await raw(
      `POST /api/notes HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: ${note.length}\r\n\r\n${note}`,
    );
    const row = JSON.parse(body);
    expect(row).toEqual({ id: row.id, title: "made", done: false });
    expect(head).toBe(
      [
        "HTTP/1.1 201 Created",
        "x-content-type-options: nosniff",
        "content-type: application/json",
        `location: /api/notes/${row.id}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        "Date: X",
        "Connection: keep-alive",
        "Keep-Alive: timeout=5",
      ].join("\r\n"),
    );
    // With Origin, through hono's Response: the CORS headers are added to it.
    const cors = await raw(
      `POST /api/notes HTTP/1.1\r\n${host()}Origin: http://localhost:3000\r\nContent-Type: application/json\r\nContent-Length: ${note.length}\r\n\r\n${note}`,
    );
    expect(cors.head).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(cors.head).toContain("\r\naccess-control-allow-origin: http://localhost:3000\r\n");
    expect(cors.head).toContain(`\r\nlocation: /api/notes/${JSON.parse(cors.body).id}\r\n`);
  });

  it("a missing row is still a problem answer, and keep-alive goes on after each answer", async () => {
    const { hostname, port } = new URL(wo.url);
    const socket = connect(Number(port), hostname);
    const answers: string[] = [];
    let data = "";
    const done = new Promise<void>((resolve) =>
      socket.on("data", (d) => {
        data += d.toString("utf8");
        const parts = data.split(/HTTP\/1\.1 /).filter(Boolean);
        if (parts.length === 3 && data.endsWith("}")) {
          answers.push(...parts);
          resolve();
        }
      }),
    );
    for (const path of ["/api/notes/1", "/api/notes/99", "/api/notes/1"])
      socket.write(`GET ${path} HTTP/1.1\r\n${host()}\r\n`);
    await done;
    socket.destroy();
    expect(answers.map((a) => a.slice(0, 3))).toEqual(["200", "404", "200"]);
    expect(answers[1]).toContain("content-type: application/problem+json");
  });
});
