// The samples check clean and their catalogs match the golden snapshots
// (test/golden/catalog/<sample>.json; rewrite with WO_UPDATE_GOLDEN=1 and review the diff).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";

const root = join(import.meta.dirname, "..", "..");
const samples = ["hello", "blog", "pricing"];

/** Only these warnings are expected in samples: none. */
const allowedWarnings = new Set<string>();

describe("samples", () => {
  it.each(samples)("%s checks clean and matches its golden catalog", async (name) => {
    const result = await checkApp(join(root, "samples", name));
    const problems = result.diagnostics.filter((d) => d.severity === "error" || !allowedWarnings.has(d.code));
    expect(problems.map((d) => `${d.span.file}:${d.span.line}:${d.span.col} ${d.code} ${d.message}`)).toEqual([]);
    expect(result.catalog).toBeDefined();
    const golden = join(root, "test", "golden", "catalog", `${name}.json`);
    const actual = `${JSON.stringify(result.catalog, null, 2)}\n`;
    if (process.env.WO_UPDATE_GOLDEN === "1" || !existsSync(golden)) {
      mkdirSync(dirname(golden), { recursive: true });
      writeFileSync(golden, actual);
    }
    expect(actual).toBe(readFileSync(golden, "utf8"));
  });

  it("blog: relations, unions, structs and the create-required rule land in the catalog", async () => {
    const { catalog } = await checkApp(join(root, "samples", "blog"));
    const post = catalog!.types.find((t) => t.name === "Post")!;
    expect(post.fields[0]).toMatchObject({ name: "id", isSynthetic: true, isWritable: false });
    const byName = Object.fromEntries(post.fields.map((f) => [f.name, f]));
    expect(byName.status).toMatchObject({
      type: { kind: "union", variants: ["Draft", "Published", "Archived"] },
      default: { kind: "literal", value: "Draft" },
      isRequiredOnCreate: false,
    });
    expect(byName.title).toMatchObject({ isRequiredOnCreate: true, isStored: true, isWritable: true });
    expect(byName.author).toMatchObject({ type: { kind: "ref", target: "Author" }, isRequiredOnCreate: true });
    expect(byName.tags).toMatchObject({
      type: { kind: "multi", target: "Tag", via: "Tagging" },
      isStored: false,
      isRequiredOnCreate: false,
    });
    expect(byName.comments).toMatchObject({
      type: { kind: "backlink", target: "Comment", field: "post" },
      isStored: false,
    });
    expect(byName.slug!.isUnique).toBe(true);
    expect(post.table).toBe("posts");
    expect(post.indexes).toEqual([
      { name: "posts_status_idx", columns: ["status"] },
      { name: "posts_author_published_at_idx", columns: ["author", "published_at"] },
    ]);
    // No `service mcp` on Post: its REST list governs MCP, minus subscribe.
    expect(post.mcp).toEqual(["list", "get", "create", "update", "delete"]);
    const author = catalog!.types.find((t) => t.name === "Author")!;
    expect(author.rest[0]!.ops).toContain("me");
    expect(author.mcp).toEqual(["list", "get", "create", "update"]);
    const tagging = catalog!.types.find((t) => t.name === "Tagging")!;
    expect(tagging.link).toEqual({ from: "Post", to: "Tag", fromField: "post", toField: "tag" });
    // The endpoints are stored refs, required on create and never updated; then the link's own fields.
    expect(tagging.fields.map((f) => f.name)).toEqual(["id", "post", "tag", "added_at"]);
    expect(tagging.fields[1]).toMatchObject({
      type: { kind: "ref", target: "Post" },
      isStored: true,
      isRequiredOnCreate: true,
      isImmutable: true,
    });
    expect(catalog!.app).toMatchObject({ name: "blog", version: "0.1.0" });
  });

  it("pricing: methods carry signatures, txn modes and bodies", async () => {
    const { catalog } = await checkApp(join(root, "samples", "pricing"));
    const product = catalog!.types.find((t) => t.name === "Product")!;
    const setPrice = product.methods.find((m) => m.name === "set_price")!;
    expect(setPrice.params).toMatchObject([{ name: "amount", type: { kind: "scalar", scalar: "Money" } }]);
    expect(setPrice.returns).toEqual({ type: { kind: "embedded", type: "Price" }, isArray: false });
    expect(setPrice.txn).toBe("default");
    expect(setPrice.body.statements.length).toBe(4);
    expect(product.methods.find((m) => m.name === "history")).toMatchObject({
      txn: "snapshot",
      returns: { isArray: true },
    });
    expect(product.mcp).toEqual(["list", "get", "create", "set_price", "current_price", "history"]);
    expect(catalog!.config.maxBodyBytes).toBe(65536);
  });
});
