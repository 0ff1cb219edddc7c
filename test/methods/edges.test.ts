// Edge-labelled relations (`related: multi Note @edge(:RELATED_TO)`, spec/language.md "Edge
// relations"): each has a link table of its own (`_wo_edge_…`), written by `link a -[:L]-> b`
// and `unlink`, read by `row.related`, `count`, `contains(rows, pred)`, and served as relation
// operations over REST and MCP like a `via` relation. Checked in memory; run by a real `wo run`
// on SQLite and on PostgreSQL; the table planned by `wo migrate --plan`. Then link types with
// properties as edges: `source`/`target` in a policy, a predicate and body reads, and a `via`
// relation read in a body as its edges (spec/language.md "Link types").

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { dumpDb, removeApp, runWoCommand, startWo, writeApp, type WoProcess } from "../support/wo-process.js";
import { compileSources, cursorAt, errorsOf } from "./compile-fixture.js";
import { mcpClient, post } from "./wo-process.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

function notes(fn = ""): string {
  return `class Note {
  slug: Text @unique
  related: multi Note @edge(:RELATED_TO)
  labels: multi Label @edge(:TAGGED_AS)

  fn relate(other: ref Note) {
    link self -[:RELATED_TO]-> other
  }

  fn unrelate(other: ref Note) {
    unlink self -[:RELATED_TO]-> other
  }

  fn relate_slugs(a: Text, b: Text) -> Int {
    link Note{ slug == a } -[:RELATED_TO]-> Note{ slug == b }
    return count(Note{ slug == a }.related)
  }

  fn label(l: ref Label) {
    link self -[:TAGGED_AS]-> l
  }

  fn has_related(s: Text) -> Bool {
    return contains(self.related, slug == s)
  }

  fn related_slugs() -> [Text] {
    return self.related.slug
  }
${fn}
  service rest "/api/notes" expose list, get, create, update, delete, relate, unrelate, relate_slugs, label, has_related, related_slugs
  service mcp "/mcp" expose get, update
}

class Label {
  name: Text
  service rest "/api/labels" expose create, get
}
`;
}

describe("edge relations: checking", () => {
  it("check cleanly, with no WO2110 for the labelled fields", () => {
    const { diagnostics, catalog } = compileSources({ "app.wo": notes() });
    expect(diagnostics.map((d) => d.code)).toEqual([]);
    const edge = catalog!.types.find((t) => t.edge?.field === "related")!;
    expect(edge).toMatchObject({
      name: "Note$related",
      table: "_wo_edge_note__related",
      link: { from: "Note", to: "Note", fromField: "from_note", toField: "to_note" },
      edge: { owner: "Note", field: "related", label: "RELATED_TO" },
    });
    expect(catalog!.types.find((t) => t.edge?.field === "labels")!.link).toMatchObject({
      fromField: "note",
      toField: "label",
    });
  });

  const broken: [title: string, fn: string, code: string][] = [
    ["a label no field has", `  fn m(o: ref Note) {\n    link self -[:┆NOPE]-> o\n  }`, "WO5026"],
    ["a label whose field points elsewhere", `  fn m(o: ref Note) {\n    link self -[:┆TAGGED_AS]-> o\n  }`, "WO5026"],
    ["a plain id as the source", `  fn m(x: Int) {\n    link ┆x -[:RELATED_TO]-> self\n  }`, "WO5026"],
    [
      "a contains predicate over an unknown field",
      `  fn m() -> Bool {\n    return contains(self.related, ┆nope == 1)\n  }`,
      "WO5001",
    ],
  ];
  for (const [title, fn, code] of broken) {
    it(`${title} → ${code}`, () => {
      const app = notes(fn);
      expect(errorsOf(app)).toEqual([`${code} ${cursorAt(app)}`]);
    });
  }

  it("says which field the label needed", () => {
    const messages = (fn: string) =>
      compileSources({ "app.wo": notes(fn) })
        .diagnostics.filter((d) => d.severity === "error")
        .map((d) => d.message);
    expect(messages(`  fn m(o: ref Note) {\n    link self -[:NOPE]-> o\n  }`)).toEqual([
      "'link … -[:NOPE]->' needs one field '… multi Note @edge(:NOPE)' on 'Note' but was given 'Note', which has none.",
    ]);
    expect(messages(`  fn m(o: ref Note) {\n    unlink self -[:TAGGED_AS]-> o\n  }`)).toEqual([
      "'unlink … -[:TAGGED_AS]->' needs one field '… multi Note @edge(:TAGGED_AS)' on 'Note' but was given 'Note', whose ones point to 'Label'.",
    ]);
  });

  it("a declared table may not take wo's '_wo_' prefix", () => {
    const app = `@table(name: ┆"_wo_edge_a__x")\ntype A {\n  x: Int\n}\n`;
    expect(errorsOf(app)).toEqual([`WO2022 ${cursorAt(app)}`]);
  });
});

describe("edge relations: wo migrate --plan", () => {
  it("plans the link table with its pair index, and drops it with the field", async () => {
    const dir = writeApp("edges-migrate", { "app.wo": notes() });
    try {
      const plan = await runWoCommand(["migrate", dir, "--plan"]);
      expect(plan.stdout).toContain("+ created table '_wo_edge_note__related' for type 'Note$related'");
      expect(plan.stdout).toContain(
        'CREATE UNIQUE INDEX IF NOT EXISTS "_wo_edge_note__related__link__unique" ON "_wo_edge_note__related" ("from_note", "to_note");',
      );
      expect((await runWoCommand(["migrate", dir, "--apply"])).code).toBe(0);
      const without = notes()
        .replace("  related: multi Note @edge(:RELATED_TO)\n", "")
        .replace(/ {2}fn relate\(other[\s\S]*?(?= {2}fn label)/, "")
        .replace(/ {2}fn has_related[\s\S]*?(?=\n {2}service)/, "")
        .replace(", relate, unrelate, relate_slugs, label, has_related, related_slugs", ", label");
      writeFileSync(join(dir, "app.wo"), without);
      const drop = await runWoCommand(["migrate", dir, "--plan"]);
      expect(drop.stdout + drop.stderr).toContain("_wo_edge_note__related");
      expect(drop.stdout).toContain("type 'Note$related' was removed (its table '_wo_edge_note__related' is empty)");
    } finally {
      removeApp(dir);
    }
  });
});

for (const store of ["sqlite", "postgres"] as const) {
  describe(`edge relations: wo run (${store})`, () => {
    let server: PostgresServer | undefined;
    let dir: string;
    let wo: WoProcess;
    let mcp: Client;
    beforeAll(async () => {
      dir = writeApp(`edges-${store}`, { "app.wo": notes() });
      const db = store === "postgres" ? ["--db", await (server = await startPostgres()).createDatabase()] : [];
      wo = await startWo([dir, ...db, "--listen", "127.0.0.1:0"]);
      mcp = await mcpClient(wo.url);
    });
    afterAll(async () => {
      await mcp?.close();
      await wo?.stop();
      if (dir) removeApp(dir);
      await server?.stop();
    });

    const make = async (slug: string) => {
      const r = await post(wo.url, "/api/notes", { slug });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as number;
    };
    const relatedOf = async (id: number) => {
      const res = await fetch(`${wo.url}/api/notes/${id}/related`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: { slug: string }[] }).items.map((n) => n.slug);
    };
    const call = async (id: number, method: string, body: object = {}) =>
      post(wo.url, `/api/notes/${id}/${method}`, body);

    it("link and unlink in a method; a second link of the pair is the same edge", async () => {
      const [a, b, c] = [await make("a1"), await make("b1"), await make("c1")];
      expect((await call(a, "relate", { other: c })).status).toBe(200);
      expect((await call(a, "relate", { other: b })).status).toBe(200);
      expect((await call(a, "relate", { other: b })).status).toBe(200);
      // The relation operation pages the edges in link order; a body reads the rows in id order.
      expect(await relatedOf(a)).toEqual(["c1", "b1"]);
      expect((await call(a, "related_slugs")).body).toEqual(["b1", "c1"]);
      expect(await relatedOf(b)).toEqual([]);
      expect((await call(a, "has_related", { s: "c1" })).body).toBe(true);
      expect((await call(a, "has_related", { s: "a1" })).body).toBe(false);
      expect((await call(a, "unrelate", { other: b })).status).toBe(200);
      expect((await call(a, "unrelate", { other: b })).status).toBe(200);
      expect(await relatedOf(a)).toEqual(["c1"]);
    });

    it("selects as ends: a missing row ends the call, writing nothing", async () => {
      const [x] = [await make("x2"), await make("y2")];
      const r = await call(x, "relate_slugs", { a: "x2", b: "y2" });
      expect(r).toMatchObject({ status: 200, body: 1 });
      const missing = await call(x, "relate_slugs", { a: "x2", b: "nope" });
      expect(missing.status).toBe(409);
      expect(JSON.stringify(missing.body)).toContain("the target of 'link' has no value at app.wo:15");
      expect(await relatedOf(x)).toEqual(["y2"]);
    });

    it("relation operations over REST and MCP; a label's edges stay apart from another's", async () => {
      const [p, q] = [await make("p3"), await make("q3")];
      const label = await post(wo.url, "/api/labels", { name: "l" });
      expect((await call(p, "label", { l: label.body.id })).status).toBe(200);
      const put = await fetch(`${wo.url}/api/notes/${p}/related/${q}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(put.status).toBe(201);
      expect(await put.json()).toMatchObject({ from_note: p, to_note: q });
      expect(await relatedOf(p)).toEqual(["q3"]);
      const labels = (await (await fetch(`${wo.url}/api/notes/${p}/labels`)).json()) as { items: { name: string }[] };
      expect(labels.items.map((l) => l.name)).toEqual(["l"]);
      const del = await fetch(`${wo.url}/api/notes/${p}/related/${q}`, { method: "DELETE" });
      expect(del.status).toBeLessThan(300);
      expect(await relatedOf(p)).toEqual([]);

      const added = await mcp.callTool({ name: "note_related_add", arguments: { id: p, to_note: q } });
      expect(added.isError, JSON.stringify(added)).toBeFalsy();
      const listed = await mcp.callTool({ name: "note_related", arguments: { id: p } });
      expect(JSON.stringify(listed.structuredContent ?? listed.content)).toContain("q3");
      const removed = await mcp.callTool({ name: "note_related_remove", arguments: { id: p, to_note: q } });
      expect(removed.isError, JSON.stringify(removed)).toBeFalsy();
      expect(await relatedOf(p)).toEqual([]);
    });

    it("deleting either end deletes its edges", async () => {
      const [s, t, u] = [await make("s4"), await make("t4"), await make("u4")];
      await call(s, "relate", { other: t });
      await call(u, "relate", { other: s });
      expect((await fetch(`${wo.url}/api/notes/${s}`, { method: "DELETE" })).status).toBeLessThan(300);
      expect(await relatedOf(u)).toEqual([]);
      if (store === "sqlite") {
        const edges = (dumpDb(dir)._wo_edge_note__related ?? []) as { from_note: number; to_note: number }[];
        expect(edges.filter((e) => e.from_note === s || e.to_note === s)).toEqual([]);
      }
    });
  });
}

/** A link type with properties used as a graph edge; `source`/`target` name its two ends. */
const shop = `type Buyer {
  email: Text @unique
  bought: multi Item via Sale
  service rest "/api/buyers" expose create, get, update
}

type Item {
  sku: Text @unique
  price: Money
  buyers: multi Buyer via Sale
  service rest "/api/items" expose create, get
}

type Receipt {
  buyer: ref Buyer
}

type Sale link Buyer -> Item {
  receipt: ref Receipt
  qty: Int
  unit_price: Money
  at: Timestamp = now()
  policy read when source == $session.user
}

fn buy(b: ref Buyer, i: Item, qty: Int) -> Receipt {
  let r = insert Receipt { buyer: b }
  link b -[Sale { receipt: r, qty: qty, unit_price: i.price }]-> i
  return r
}

test "a via relation reads its edges" {
  let b = insert Buyer { email: "a@x" }
  let i = insert Item { sku: "T-1", price: 999 }
  let r = buy(b, i, 3)
  let edges = Buyer{ email == "a@x" }.bought
  assert len(edges) == 1
  assert edges[0].target.sku == "T-1"
  assert edges[0].source == b.id
  assert edges[0].qty == 3
  assert edges[0].receipt == r.id
  assert edges[0].unit_price == 999
  assert i.buyers[0].source.email == "a@x"
  assert len(Sale{ target == i.id }) == 1
  assert len(Sale{ source == b.id + 100 }) == 0
  -- No buyer of that email: reading its relation ends the call, as reading a field of it does.
  expect_abort "has no value" {
    assert len(Buyer{ email == "none@x" }.bought) == 0
  }
}
`;

describe("link types as edges: source and target", () => {
  it("name the endpoints in policies, predicates and bodies; a via relation's rows are the edges", () => {
    const { diagnostics, catalog } = compileSources({ "app.wo": shop });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const sale = catalog!.types.find((t) => t.name === "Sale")!;
    expect(sale.policies![0]!.when).toMatchObject({ left: { kind: "field", path: ["buyer"] } });
  });

  // A free fn with an error is not executed (WO2111), quoting the error with its position.
  const skippedFor = (fn: string) =>
    compileSources({ "app.wo": `${shop}\n${fn}` })
      .diagnostics.filter((d) => d.code === "WO2111")
      .map((d) => d.message);

  it("a via relation is [L] in a body, not the far rows", () => {
    expect(skippedFor("fn items(b: Buyer) -> [Item] {\n  return b.bought\n}\n")).toEqual([
      "fn 'items' is not executed: Method 'items' returns [Item], but this returns [Sale]. (app.wo:53:10).",
    ]);
  });

  it("source and target are a link type's only: elsewhere WO5003 / WO2051", () => {
    expect(skippedFor("fn f(r: Receipt) -> Int {\n  return r.source\n}\n")).toEqual([
      "fn 'f' is not executed: 'Receipt' has no field 'source'. (app.wo:53:12).",
    ]);
    const policy = shop.replace(
      "  buyer: ref Buyer\n}",
      "  buyer: ref Buyer\n  policy read when ┆target == $session.user\n}",
    );
    expect(errorsOf(policy)).toEqual([`WO2051 ${cursorAt(policy)}`]);
  });

  it("wo test runs the program's test", async () => {
    const dir = writeApp("edges-shop", { "app.wo": shop });
    try {
      const r = await runWoCommand(["test", dir]);
      expect(r.stdout + r.stderr).toContain("1 passed, 0 failed");
      expect(r.code).toBe(0);
    } finally {
      removeApp(dir);
    }
  });
});

describe("link types as edges: a policy on source, over REST", () => {
  const ownerToken = "edges-owner-token-0123456789abcdef0123";
  let dir: string;
  let wo: WoProcess;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    dir = writeApp("edges-policy", {
      "wo.toml": 'name = "shop"\n\n[server]\ntoken_env = "WO_EDGES_OWNER"\n',
      "app.wo": shop.replace(
        "type Receipt {\n  buyer: ref Buyer\n}",
        'type Receipt {\n  buyer: ref Buyer\n  service rest "/api/receipts" expose create\n}',
      ),
    });
    for (const user of ["1", "2"]) {
      const r = await runWoCommand(["token", "add", `shopper${user}`, dir, "--role", "shopper", "--user", user]);
      expect(r.code, r.stderr).toBe(0);
      tokens[user] = r.stdout.trimEnd().split("\n").at(-1)!;
    }
    wo = await startWo([dir, "--listen", "127.0.0.1:0"], { env: { WO_EDGES_OWNER: ownerToken } });
  });
  afterAll(async () => {
    await wo?.stop();
    if (dir) removeApp(dir);
  });
  const as = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(wo.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it("the buyer reads their edges; another caller reads none of them", async () => {
    const b1 = await as(ownerToken, "POST", "/api/buyers", { email: "one@x" });
    const b2 = await as(ownerToken, "POST", "/api/buyers", { email: "two@x" });
    expect([b1.body.id, b2.body.id]).toEqual([1, 2]);
    const item = await as(ownerToken, "POST", "/api/items", { sku: "S-1", price: 5 });
    const receipt = await as(ownerToken, "POST", "/api/receipts", { buyer: 1 });
    const linked = await as(ownerToken, "PUT", `/api/buyers/1/bought/${item.body.id}`, {
      receipt: receipt.body.id,
      qty: 2,
      unit_price: 5,
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    const mine = await as(tokens["1"]!, "GET", "/api/buyers/1/bought");
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((i: { sku: string }) => i.sku)).toEqual(["S-1"]);
    const theirs = await as(tokens["2"]!, "GET", "/api/buyers/1/bought");
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
  });
});
