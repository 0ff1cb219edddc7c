// spec/security.md, "Hostile input": findings of an adversarial review, each reproduced against
// a real `wo run` with raw HTTP (node:http where headers are well-formed, node:net where they
// must be malformed, repeated or pipelined), and each would fail without its fix.

import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../support/raw-http.js";
import { dumpDb, removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

const app = {
  "wo.toml": 'name = "hostile"\n',
  "app.wo": `class Note {
  title: Text
  size: Int = 0
  score: Float = 1.0
  link: Url?
  site: Url? @schemes("https", "ftp")
  due: Timestamp?

  fn grow(by: Float) -> Note in txn {
    update self set score = self.score * by
    return self
  }

  fn ratio(by: Float) -> Float {
    return self.score / by
  }

  service rest "/api/notes" expose list, get, create, update, subscribe, grow, ratio
  service mcp "/mcp" expose list, get, create, update, grow
}
`,
};

let appDir: string;
let wo: WoProcess;

beforeAll(async () => {
  appDir = writeApp("hostile", app);
  wo = await startWo([appDir, "--listen", "127.0.0.1:0"]);
}, 120_000);

afterAll(async () => {
  await wo?.stop();
  if (appDir) removeApp(appDir);
});

const notes = () => dumpDb(appDir).note;
const json = { "content-type": "application/json" };

function post(path: string, body: string) {
  return rawRequest(wo.url, "POST", path, json, body);
}

let rpcId = 0;
/** A stateless (2026-07-28) MCP tools/call whose `arguments` are the given JSON text, verbatim. */
function mcpCall(tool: string, argumentsJson: string) {
  const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;
  const body = `{"jsonrpc":"2.0","id":${++rpcId},"method":"tools/call","params":{"name":"${tool}","arguments":${argumentsJson},"_meta":${meta}}}`;
  return rawRequest(
    wo.url,
    "POST",
    "/mcp",
    {
      ...json,
      accept: "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body,
  );
}

/** Bytes written as they are over one connection; resolves with all it read once `done` says so or it closes. */
function rawSocket(
  bytes: string,
  done: (text: string) => boolean,
  then?: (text: string, write: (more: string) => void) => void,
): Promise<string> {
  const { hostname, port } = new URL(wo.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    const finish = () => {
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(finish, 10_000);
    socket.on("data", (c) => {
      text += c.toString("utf8");
      then?.(text, (more) => socket.write(more));
      if (done(text)) {
        clearTimeout(timer);
        finish();
      }
    });
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.write(bytes);
  });
}

/** The responses in `text` (status, headers, body), in order: Content-Length or chunked bodies. */
function responses(text: string): { status: number; headers: Record<string, string>; body: string }[] {
  const out: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = "";
    if (headers["content-length"] !== undefined) {
      body = rest.slice(0, Number(headers["content-length"]));
      rest = rest.slice(body.length);
    } else if (headers["transfer-encoding"] === "chunked") {
      for (;;) {
        const nl = rest.indexOf("\r\n");
        const size = Number.parseInt(rest.slice(0, nl), 16);
        body += rest.slice(nl + 2, nl + 2 + size);
        rest = rest.slice(nl + 2 + size + 2);
        if (size === 0) break;
      }
    }
    out.push({ status: Number(statusLine!.split(" ")[1]), headers, body });
  }
  return out;
}

describe("hostile input against a real wo run (SQLite)", () => {
  it("U+0000 in a Text value or a filter is refused with 400 naming the field, REST and MCP alike", async () => {
    const created = await post("/api/notes", `{"title":"ok"}`);
    expect(created.status, created.text).toBe(201);
    const before = notes();

    const create = await post("/api/notes", `{"title":"a\\u0000b"}`);
    expect(create.status, create.text).toBe(400);
    expect(create.json.errors).toEqual([{ path: "/title", message: expect.stringContaining("U+0000") }]);
    const update = await rawRequest(wo.url, "PATCH", `/api/notes/${created.json.id}`, json, `{"title":"\\u0000"}`);
    expect(update.status).toBe(400);
    expect(update.json.errors[0].path).toBe("/title");
    for (const query of ["?title=a%00b", "?title[contains]=%00", "?title[in]=x,%00"]) {
      const list = await rawRequest(wo.url, "GET", `/api/notes${query}`);
      expect(list.status, query).toBe(400);
      expect(list.json.errors[0].message, query).toContain("U+0000");
    }
    const mcp = await mcpCall("note_create", `{"title":"x\\u0000"}`);
    expect(mcp.status).toBe(200);
    expect(mcp.json.result.isError, mcp.text).toBe(true);
    expect(mcp.json.result.content[0].text).toContain("/title: contains U+0000");
    expect(notes()).toEqual(before);
  });

  it("live-stream filters get the list's checks: integer range, dates, `in` size → 400", async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => i).join(",");
    for (const query of [
      "size=9999999999999999",
      "size[gte]=-9999999999999999",
      "due=yesterday",
      `size[in]=${tooMany}`,
    ]) {
      const list = await rawRequest(wo.url, "GET", `/api/notes?${query}`);
      expect(list.status, `list ${query}`).toBe(400);
      const live = await rawRequest(wo.url, "GET", `/api/notes/live?${query}`);
      expect(live.status, `live ${query}`).toBe(400);
      expect(live.json.errors[0].path).toBe(list.json.errors[0].path);
    }
    const ok = await rawRequest(wo.url, "GET", "/api/notes/live?size[gte]=1&due[lt]=2030-01-01T00:00:00Z");
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toBe("text/event-stream");
  });

  it("a request with two Host headers is answered 400", async () => {
    const text = await rawSocket(
      "GET /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
      (t) => t.includes("\r\n\r\n"),
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    const single = await rawSocket(
      "GET /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      () => false,
    );
    expect(single).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("pipelined requests are answered in order, and a GET after a POST sees its row", async () => {
    const body = `{"title":"piped"}`;
    const create = `POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const pipelined =
      create +
      create +
      "GET /api/notes?title=piped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    const answers = responses(await rawSocket(pipelined, () => false));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 200, 200]);
    const created = [JSON.parse(answers[0]!.body), JSON.parse(answers[1]!.body)];
    expect(JSON.parse(answers[2]!.body).items).toEqual(created);
    expect(answers[3]!.body).toBe("ok");
    // The connection serves requests sent one at a time afterwards too.
    let sentSecond = false;
    const later = responses(
      await rawSocket(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        (t) => responses(t).length === 2,
        (t, write) => {
          if (responses(t).length !== 1 || sentSecond) return;
          sentSecond = true;
          write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        },
      ),
    );
    expect(later.map((a) => a.status)).toEqual([200, 200]);
  });

  it("Float overflow in a method is an error (409), never null or Infinity stored; so is huge Float input", async () => {
    const created = await post("/api/notes", `{"title":"big","score":1.5e308}`);
    expect(created.status, created.text).toBe(201);
    const before = notes();
    const grown = await post(`/api/notes/${created.json.id}/grow`, `{"by":10}`);
    expect(grown.status, grown.text).toBe(409);
    expect(grown.json.detail).toMatch(/^Float overflow at app\.wo:10/);
    const divided = await post(`/api/notes/${created.json.id}/ratio`, `{"by":1e-10}`);
    expect(divided.status, divided.text).toBe(409);
    expect(divided.json.detail).toContain("Float overflow");
    const mcp = await mcpCall("note_grow", `{"id":${created.json.id},"by":10}`);
    expect(mcp.json.result.isError, mcp.text).toBe(true);
    expect(mcp.json.result.content[0].text).toContain("Float overflow");
    for (const huge of ["1e400", "-1e400"]) {
      const r = await post("/api/notes", `{"title":"huge","score":${huge}}`);
      expect(r.status, huge).toBe(400);
      expect(r.json.errors[0].path).toBe("/score");
    }
    expect(notes()).toEqual(before);
    const fine = await post(`/api/notes/${created.json.id}/grow`, `{"by":0.5}`);
    expect(fine.json.score).toBe(0.75e308);
  });

  it("Url takes http, https and mailto unless @schemes says otherwise; javascript: is never stored", async () => {
    const before = notes();
    for (const link of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "data:text/html,<script>x</script>",
      "file:///etc/passwd",
    ]) {
      const r = await post("/api/notes", JSON.stringify({ title: "u", link }));
      expect(r.status, link).toBe(400);
      expect(r.json.errors[0].path).toBe("/link");
    }
    const ftpOnDefault = await post("/api/notes", JSON.stringify({ title: "u", link: "ftp://x.org/f" }));
    expect(ftpOnDefault.status).toBe(400);
    const httpOnSite = await post("/api/notes", JSON.stringify({ title: "u", site: "http://x.org" }));
    expect(httpOnSite.status).toBe(400);
    const mcp = await mcpCall("note_create", `{"title":"u","link":"javascript:alert(1)"}`);
    expect(mcp.json.result.isError, mcp.text).toBe(true);
    expect(notes()).toEqual(before);
    for (const [link, site] of [
      ["https://example.com/a", "ftp://files.example.com/x"],
      ["HTTP://example.com", "https://example.com"],
      ["mailto:ada@example.com", "FTP://example.com"],
    ]) {
      const r = await post("/api/notes", JSON.stringify({ title: "u", link, site }));
      expect(r.status, `${link} ${site}`).toBe(201);
    }
    // Agents see the rule in the tool's input schema.
    const schema = JSON.parse((await rawRequest(wo.url, "GET", "/openapi.json")).text);
    expect(JSON.stringify(schema)).toContain("[hH][tT][tT][pP]");
  });

  it("every JSON answer carries X-Content-Type-Options: nosniff", async () => {
    const answers = [
      await rawRequest(wo.url, "GET", "/api/notes"),
      await rawRequest(wo.url, "GET", "/api/notes/999999"),
      await rawRequest(wo.url, "GET", "/api/nothing"),
      await post("/api/notes", "{"),
      await mcpCall("note_list", "{}"),
      await rawRequest(wo.url, "GET", "/openapi.json"),
      await rawRequest(wo.url, "GET", "/", { accept: "application/json" }),
    ];
    for (const a of answers) {
      expect(a.headers["content-type"]).toMatch(/json/);
      expect(a.headers["x-content-type-options"], a.text.slice(0, 80)).toBe("nosniff");
    }
  });

  it("an Origin with an invalid port is refused (403)", async () => {
    for (const origin of [
      "http://localhost:99999",
      "http://127.0.0.1:65536",
      "http://localhost:abc",
      "http://localhost:",
    ]) {
      const r = await rawRequest(wo.url, "GET", "/api/notes", { origin });
      expect(r.status, origin).toBe(403);
    }
    expect((await rawRequest(wo.url, "GET", "/api/notes", { origin: "http://localhost:65535" })).status).toBe(200);
  });

  it("Expect: 100-continue with a bad media type gets its 415 before any 100 Continue", async () => {
    const head = (type: string) =>
      `POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: 16\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const refused = await rawSocket(head("text/plain"), (t) => t.includes("\r\n\r\n"));
    expect(refused).toMatch(/^HTTP\/1\.1 415 /);
    // A JSON body is invited, sent after the 100, and created.
    let sent = false;
    const accepted = await rawSocket(
      head("application/json"),
      (t) => /\r\n\r\n\{.*\}/s.test(t.slice(t.indexOf("HTTP/1.1 2"))),
      (t, write) => {
        if (!sent && t.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
          sent = true;
          write(`{"title":"100c"}`);
        }
      },
    );
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });
});
