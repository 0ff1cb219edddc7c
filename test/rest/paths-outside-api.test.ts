// A REST path outside /api/ (the language's own docs write `service rest "/articles"`): served
// like any other, in the OpenAPI document and beside wo's own routes, which it may not shadow
// (compiler/check/services.ts, restPathProblem; test/check/broken.test.ts has the refusals).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

const json = { "content-type": "application/json" };
let app: string;
let wo: WoProcess;

beforeAll(async () => {
  app = writeApp("articles", {
    "app.wo": `type Article {
  id: Id
  title: Text
  service rest "/articles" expose list, get, create
}
`,
  });
  wo = await startWo([app, "--listen", "127.0.0.1:0"]);
}, 120_000);
afterAll(async () => {
  await wo?.stop();
  if (app) removeApp(app);
});

describe("a REST path outside /api/", () => {
  it("serves create, get and list at the declared path", async () => {
    const created = await fetch(`${wo.url}/articles`, { method: "POST", headers: json, body: '{"title":"Hi"}' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const got = await fetch(`${wo.url}/articles/${id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id, title: "Hi" });
    const listed = (await (await fetch(`${wo.url}/articles`)).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(1);
  });

  it("is in the OpenAPI document, and wo's own routes still answer", async () => {
    const doc = (await (await fetch(`${wo.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/articles", "/articles/{id}"]));
    expect((await fetch(`${wo.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${wo.url}/api/articles`)).status).toBe(404);
  });
});
