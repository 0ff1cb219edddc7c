// Relations in the catalog and their operations (spec/language.md "Link types", spec/rest.md
// "Relations"): endpoint fields of link types, a link between rows of one type, and which
// relation ops each exposure brings.
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import type { Catalog } from "../../compiler/catalog.js";
import { allRelationOps, relationOps, relationRoute } from "../../model/relations.js";
import { writeApp } from "./app-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function catalogOf(text: string): Promise<Catalog> {
  const dir = writeApp({ "app.wo": text });
  dirs.push(dir);
  const { catalog, diagnostics } = await checkApp(dir);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return catalog!;
}

const articles = `type Article {
  title: Text
  related: multi Article via Related
  notes: backlink Note.article
  service rest "/api/articles" expose list, get, update
  service mcp "/mcp" expose get
}
type Note {
  article: ref Article
}
type Related link Article -> Article {
  why: Text?
}
`;

describe("relations", () => {
  it("a link between rows of one type stores from_<t> and to_<t>; the declaring row is the from end", async () => {
    const catalog = await catalogOf(articles);
    const related = catalog.types.find((t) => t.name === "Related")!;
    expect(related.link).toEqual({ from: "Article", to: "Article", fromField: "from_article", toField: "to_article" });
    expect(related.fields.map((f) => f.name)).toEqual(["id", "from_article", "to_article", "why"]);
    const article = catalog.types.find((t) => t.name === "Article")!;
    const [rel] = allRelationOps(catalog, article);
    expect(rel!.relation.path).toMatchObject({ kind: "link", ownerColumn: "from_article", targetColumn: "to_article" });
  });

  it("get brings the read op of every relation, update the add/remove ops of via relations, per exposure", async () => {
    const catalog = await catalogOf(articles);
    const article = catalog.types.find((t) => t.name === "Article")!;
    const ops = (list: string[]) => relationOps(catalog, article, list).map((r) => r.op);
    // REST exposes get and update: reads of both, writes of the link relation only.
    expect(ops(article.rest[0]!.ops)).toEqual(["related", "related_add", "related_remove", "notes"]);
    // MCP exposes get only.
    expect(ops(article.mcp)).toEqual(["related", "notes"]);
    expect(ops(["list", "create"])).toEqual([]);
    const routes = relationOps(catalog, article, article.rest[0]!.ops).map((r) => relationRoute("/api/articles", r));
    expect(routes).toEqual([
      { method: "GET", path: "/api/articles/:id/related" },
      { method: "PUT", path: "/api/articles/:id/related/:to_article" },
      { method: "DELETE", path: "/api/articles/:id/related/:to_article" },
      { method: "GET", path: "/api/articles/:id/notes" },
    ]);
  });

  it("a multi without via reads through the one ref pointing back; with none it has no operation", async () => {
    const catalog = await catalogOf(`type Product {
  prices: multi Price
  bundles: multi Bundle
  service rest "/api/products" expose get
}
type Price {
  product: ref Product
}
type Bundle {
  name: Text
}
`);
    const product = catalog.types.find((t) => t.name === "Product")!;
    expect(allRelationOps(catalog, product).map((r) => [r.op, r.relation.path])).toEqual([
      ["prices", { kind: "ref", column: "product" }],
    ]);
  });
});
