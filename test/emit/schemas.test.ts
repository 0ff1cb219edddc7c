// Every generated schema compiles in ajv strict mode, accepts a valid example and rejects
// invalid ones; examples come from the catalog (examples.ts), not from the schemas.
import { describe, expect, it } from "vitest";
import { emitSchemas } from "../../compiler/emit/json-schema.js";
import { createInputAjv } from "../../compiler/input-ajv.js";
import { exposedOps } from "../../compiler/emit/exposed-ops.js";
import { toolName } from "../../model/naming.js";
import { blogCatalog } from "./fixtures.js";
import { invalidValues, validObject, validRow, validValue } from "./examples.js";

const catalog = blogCatalog();
const schemas = emitSchemas(catalog);
const ajv = createInputAjv({ standalone: false });
const compile = (schema: object) => ajv.compile(schema);

describe("schemas compile in ajv strict mode", () => {
  for (const [group, record] of Object.entries(schemas)) {
    for (const [name, schema] of Object.entries(record as Record<string, object>)) {
      it(`${group}.${name}`, () => expect(() => compile(schema)).not.toThrow());
    }
  }
});

describe("create inputs", () => {
  for (const type of catalog.types.filter((t) => exposedOps(t).includes("create"))) {
    const validate = compile(schemas.inputs[toolName(type.name, "create")]!);
    const valid = validObject(catalog, type.fields);
    const minimal = Object.fromEntries(
      type.fields.filter((f) => f.isRequiredOnCreate).map((f) => [f.name, validValue(catalog, f.type)]),
    );

    it(`${type.name}: accepts a full and a minimal valid example`, () => {
      expect(validate(valid), JSON.stringify(validate.errors)).toBe(true);
      expect(validate(minimal), JSON.stringify(validate.errors)).toBe(true);
    });
    it(`${type.name}: rejects an unknown property, id, computed and relation fields`, () => {
      expect(validate({ ...valid, nonsense: 1 })).toBe(false);
      expect(validate({ ...valid, id: 5 })).toBe(false);
      for (const f of type.fields.filter((f) => !f.isWritable && f.name !== "id"))
        expect(validate({ ...valid, [f.name]: 1 })).toBe(false);
    });
    for (const f of type.fields.filter((f) => f.isWritable)) {
      it(`${type.name}.${f.name}: wrong-typed values are rejected`, () => {
        for (const bad of invalidValues(f.type))
          expect(validate({ ...valid, [f.name]: bad }), JSON.stringify(bad)).toBe(false);
      });
      it(`${type.name}.${f.name}: null ${f.isOptional ? "accepted (optional)" : "rejected"}`, () => {
        expect(validate({ ...valid, [f.name]: null })).toBe(f.isOptional);
      });
      if (f.isRequiredOnCreate) {
        it(`${type.name}.${f.name}: missing required field is rejected`, () => {
          const { [f.name]: _, ...rest } = valid;
          expect(validate(rest)).toBe(false);
        });
      }
    }
  }
});

describe("other inputs", () => {
  const input = (op: string) => compile(schemas.inputs[toolName("BlogPost", op)]!);
  it("update: id required, every writable field optional, unknown rejected", () => {
    const v = input("update");
    expect(v({ id: 1 })).toBe(true);
    expect(v({ id: 1, title: "x", editor: null })).toBe(true);
    expect(v({ title: "x" })).toBe(false);
    expect(v({ id: 1, title: null })).toBe(false);
    expect(v({ id: 1, word_count: 3 })).toBe(false);
    expect(v({ id: 0 })).toBe(false);
  });
  it("get/delete: exactly id", () => {
    const v = input("get");
    expect(v({ id: 3 })).toBe(true);
    expect(v({})).toBe(false);
    expect(v({ id: 3, x: 1 })).toBe(false);
    expect(v({ id: "3" })).toBe(false);
  });
  it("list: equality filters on scalar/union/ref fields, limit 1..1000, cursor", () => {
    const v = input("list");
    expect(v({})).toBe(true);
    expect(v({ id: 2, status: "Draft", author: 1, slug: "a-b", limit: 1000, cursor: "abc" })).toBe(true);
    expect(v({ limit: 0 })).toBe(false);
    expect(v({ limit: 1001 })).toBe(false);
    expect(v({ tags: ["a"] })).toBe(false); // arrays are not filterable
    expect(v({ meta: {} })).toBe(false); // structs are not filterable
    expect(v({ word_count: 3 })).toBe(false); // computed
    expect(v({ status: "Nope" })).toBe(false);
  });
  it("method: id plus every parameter, all required", () => {
    const v = input("retitle");
    expect(v({ id: 1, title: "t", at: "2024-01-01T00:00:00Z" })).toBe(true);
    expect(v({ id: 1, title: "t" })).toBe(false);
    expect(v({ title: "t", at: "2024-01-01T00:00:00Z" })).toBe(false);
    expect(v({ id: 1, title: "t", at: "2024-01-01T00:00:00Z", extra: 1 })).toBe(false);
    expect(compile(schemas.inputs.blog_post_publish!)({ id: 1 })).toBe(true);
  });
});

describe("rows and outputs", () => {
  for (const type of catalog.types) {
    it(`${type.name}: a row with every stored field validates; a missing field does not`, () => {
      const v = compile(schemas.rows[type.snake]!);
      const row = validRow(catalog, type);
      expect(v(row), JSON.stringify(v.errors)).toBe(true);
      expect(Object.keys(schemas.rows[type.snake]!["properties" as never] as object)).toEqual(
        type.fields.filter((f) => f.isStored).map((f) => f.name),
      );
      const { [type.fields[type.fields.length - 1]!.name]: _, ...partial } = row;
      if (type.fields[type.fields.length - 1]!.isStored) expect(v(partial)).toBe(false);
    });
  }
  it("list page, delete and method outputs", () => {
    const row = validRow(catalog, catalog.types.find((t) => t.name === "BlogPost")!);
    expect(compile(schemas.outputs.blog_post_list!)({ items: [row], nextCursor: "x" })).toBe(true);
    expect(compile(schemas.outputs.blog_post_list!)({ items: [row] })).toBe(true);
    expect(compile(schemas.outputs.blog_post_list!)({ nextCursor: "x" })).toBe(false);
    expect(compile(schemas.outputs.comment_delete!)({ deleted: true, id: 4 })).toBe(true);
    expect(compile(schemas.outputs.comment_delete!)({ deleted: false, id: 4 })).toBe(false);
    const publish = compile(schemas.outputs.blog_post_publish!);
    expect(publish(row)).toBe(true);
    expect(publish(null)).toBe(true);
    expect(publish({ ...row, id: "x" })).toBe(false);
    expect(compile(schemas.outputs.blog_post_summary!)("text")).toBe(true);
    expect(compile(schemas.outputs.blog_post_summary!)(3)).toBe(false);
    expect(compile(schemas.outputs.blog_post_retitle!)(null)).toBe(true);
  });
  it("only exposed operations have schemas; keys are sorted", () => {
    expect(Object.keys(schemas.inputs)).toEqual([...Object.keys(schemas.inputs)].sort());
    expect(schemas.inputs.blog_post_tag_counts).toBeUndefined();
    expect(schemas.inputs.audit_entry_list).toBeUndefined();
    expect(schemas.inputs.blog_post_subscribe).toBeUndefined();
    expect(Object.keys(schemas.rows)).toEqual(["address", "audit_entry", "author", "blog_post", "comment"]);
  });
});

describe("doc comments in schemas", () => {
  it("a struct field's doc describes the struct, not the fields nested on its line", async () => {
    const { checkApp } = await import("../../compiler/index.js");
    const { writeApp } = await import("../check/app-fixture.js");
    const dir = writeApp({
      "app.wo": [
        "type Person {",
        "  -- Where they live",
        "  address: { street: Text, city: Text }",
        "  -- Past names",
        "  aliases: [{ name: Text }]",
        '  service rest "/api/people" expose create',
        "}",
        "",
      ].join("\n"),
    });
    const { catalog } = await checkApp(dir);
    const input = emitSchemas(catalog!).inputs.person_create as any;
    expect(input.properties.address.description).toBe("Where they live");
    expect(input.properties.address.properties.street.description).toBeUndefined();
    expect(input.properties.address.properties.city.description).toBeUndefined();
    expect(input.properties.aliases.description).toBe("Past names");
    expect(input.properties.aliases.items.properties.name.description).toBeUndefined();
  });
});

describe("a method returning projected rows", () => {
  it("its result lists only the projected fields; a key some returns leave out is not required", async () => {
    const { checkApp } = await import("../../compiler/index.js");
    const { writeApp } = await import("../check/app-fixture.js");
    const dir = writeApp({
      "app.wo": [
        "class Item {",
        "  name: Text",
        "  fn recent(all: Bool) -> [Price] {",
        "    if all {",
        "      return select Price { item == self.id, amount, note }",
        "    }",
        "    return select Price { item == self.id, amount }",
        "  }",
        "  fn latest_or_whole(whole: Bool) -> Price {",
        "    if whole {",
        "      return latest(select Price { item == self.id })",
        "    }",
        "    return latest(select Price { item == self.id, id, amount })",
        "  }",
        '  service mcp "/mcp" expose recent, latest_or_whole',
        "}",
        "class Price {",
        "  item: ref Item",
        "  amount: Money",
        "  note: Text?",
        "}",
        "",
      ].join("\n"),
    });
    const { catalog, diagnostics } = await checkApp(dir);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const outputs = emitSchemas(catalog!).outputs as Record<string, any>;
    const recent = outputs.item_recent.anyOf?.[0]?.items ?? outputs.item_recent.items;
    expect(Object.keys(recent.properties)).toEqual(["amount", "note"]);
    expect(recent.required).toEqual(["amount"]);
    expect(recent.properties.note.type).toEqual(["string", "null"]);
    // A whole row from one return, a projection from the other: every key may come, id and amount always do.
    const one = outputs.item_latest_or_whole;
    expect(Object.keys(one.properties)).toEqual(["id", "item", "amount", "note"]);
    expect(one.required).toEqual(["id", "amount"]);
  });
});
