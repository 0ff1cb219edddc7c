// Shared by the live suites: an app with a subscribable type, JSON writes over REST, a raw
// server-sent-events reader on node:http (what an EventSource does, with every byte visible),
// a condition poll for what arrives asynchronously, and a `wo run` of the app for one test.
import { appendFileSync } from "node:fs";
import { request, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { startWoRunApp } from "../mcp/support/wo-run.js";
import { writeApp } from "../support/wo-process.js";

/** `Note`: REST with subscribe, MCP with get. `Secret`: MCP may create but not read it. */
export const liveApp = {
  "wo.toml": 'name = "rows"\n',
  "app.wo": `type Note {
  id: Id
  title: Text
  status: Draft | Published = Draft
  rank: Int = 0
  service rest "/api/notes" expose list, get, create, update, delete, subscribe
  service mcp "/mcp" expose list, get, create, update, delete
}

type Secret {
  id: Id
  code: Text
  service rest "/api/secrets" expose create
  service mcp "/mcp" expose create
}
`,
};

async function send(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

export const post = async (base: string, path: string, body: unknown) => (await send(base, "POST", path, body)).json;
export const patch = async (base: string, path: string, body: unknown) => (await send(base, "PATCH", path, body)).json;
export const del = async (base: string, path: string) => (await send(base, "DELETE", path)).status;

/** Polls `done` every 20 ms; fails with `why()` after 10 s. */
export async function waitFor(done: () => boolean, why: () => string = () => "condition never held"): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface SseEvent {
  event?: string;
  id?: string;
  data?: string;
}

export interface SseConnection {
  status: number;
  headers: IncomingMessage["headers"];
  /** Events parsed so far, in order (comments left out). */
  events: SseEvent[];
  /** Every byte received, as text. */
  raw(): string;
  /** True once the server ended the response. */
  ended(): boolean;
  close(): void;
}

/** Opens `GET path` as an event stream; resolves once the status line and headers are in. */
export function openSse(base: string, path: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      let text = "";
      let pending = "";
      let isEnded = false;
      const events: SseEvent[] = [];
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        pending += chunk;
        let cut: number;
        while ((cut = pending.indexOf("\n\n")) >= 0) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          const e: SseEvent = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            const key = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (key === "event" || key === "id" || key === "data") e[key] = value;
          }
          if (Object.keys(e).length > 0) events.push(e);
        }
      });
      res.on("end", () => (isEnded = true));
      res.on("close", () => (isEnded = true));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        raw: () => text,
        ended: () => isEnded,
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Runs `body` against a `wo run` of liveApp of its own (`toml` appended to its wo.toml, `env`
 * added), then stops it and removes the app, however `body` ends.
 */
export async function withLiveApp(
  name: string,
  options: { toml?: string; env?: Record<string, string> },
  body: (url: string) => Promise<void>,
): Promise<void> {
  const appDir = writeApp(name, liveApp);
  if (options.toml) appendFileSync(join(appDir, "wo.toml"), `\n${options.toml}\n`);
  const wo = await startWoRunApp(appDir, [], options.env);
  try {
    await body(wo.base);
  } finally {
    await wo.stop();
  }
}
