// writeAnswer (runtime/rest/json-answer.ts) sends the bytes hono's `c.body` sends through
// @hono/node-server: two servers answer the same status, headers and body, one through hono,
// one through writeAnswer, and their answers are compared byte for byte (the Date masked).

import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { createServer, type RequestListener, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAnswer } from "../../runtime/rest/json-answer.js";
import { NosniffResponse } from "../../runtime/nosniff-response.js";

interface Case {
  status: ContentfulStatusCode;
  headers: Record<string, string>;
  body: string;
}

const cases: Record<string, Case> = {
  json: { status: 200, headers: { "Content-Type": "application/json" }, body: '{"id":1,"title":"é"}' },
  problem: { status: 404, headers: { "content-type": "application/problem+json" }, body: '{"status":404}' },
  retry: {
    status: 429,
    headers: { "content-type": "application/problem+json", "retry-after": "12" },
    body: '{"status":429,"detail":"ünïcode"}',
  },
  challenge: {
    status: 401,
    headers: {
      "www-authenticate": 'Bearer realm="wo"',
      "Retry-After": "1",
      "content-type": "application/problem+json",
      "retry-after": "2",
    },
    body: '{"status":401}',
  },
};

const servers: Server[] = [];
let viaHono = "";
let viaWrite = "";

function listen(listener: RequestListener): Promise<string> {
  const server = createServer({ ServerResponse: NosniffResponse }, listener);
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  const app = new Hono();
  app.get("/:case", (c) => {
    const { status, headers, body } = cases[c.req.param("case")]!;
    return c.body(body, status, headers);
  });
  viaHono = await listen(getRequestListener(app.fetch));
  viaWrite = await listen((req, res) => {
    const { status, headers, body } = cases[req.url!.slice(1)]!;
    writeAnswer(res, status, headers, body);
  });
});

afterAll(() => {
  for (const s of servers) s.close();
});

/** The whole answer to one GET, as it arrived, with its Date masked. */
function answer(address: string, path: string): Promise<string> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host!, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${address}\r\nConnection: close\r\n\r\n`),
    );
    let data = "";
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("end", () => resolve(data.replace(/\r\nDate: [^\r]+/, "\r\nDate: X")));
    socket.on("error", reject);
  });
}

describe("writeAnswer", () => {
  it.each(Object.keys(cases))("%s: the bytes hono and @hono/node-server send", async (name) => {
    const expected = await answer(viaHono, `/${name}`);
    expect(expected).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(await answer(viaWrite, `/${name}`)).toBe(expected);
  });
});
