// Catalog builders and temp folders for the store tests: a catalog is written by hand here so
// the store is tested without the checker.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Catalog, CatalogField, CatalogType, FieldType } from "../../compiler/catalog.js";
import { defaultLimits } from "../../model/app.js";

const at = { file: "app.wo", line: 1, col: 1 };

export const scalar = (s: string): FieldType => ({ kind: "scalar", scalar: s as never });
export const union = (...variants: string[]): FieldType => ({ kind: "union", variants });
export const ref = (target: string): FieldType => ({ kind: "ref", target });
export const array = (element: FieldType): FieldType => ({ kind: "array", element });
export const struct = (...fields: CatalogField[]): FieldType => ({ kind: "struct", fields });

export function field(name: string, type: FieldType, extra: Partial<CatalogField> = {}): CatalogField {
  return {
    name,
    type,
    isOptional: false,
    isUnique: false,
    isStored: true,
    isWritable: name !== "id",
    isRequiredOnCreate: false,
    source: at,
    ...extra,
  };
}

export function opt(name: string, type: FieldType, extra: Partial<CatalogField> = {}): CatalogField {
  return field(name, type, { isOptional: true, ...extra });
}

export function type(name: string, fields: CatalogField[], extra: Partial<CatalogType> = {}): CatalogType {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  return {
    name,
    snake,
    keyword: "type",
    table: snake,
    fields: [field("id", scalar("Id"), { isSynthetic: true }), ...fields],
    indexes: [],
    services: [],
    methods: [],
    rest: [],
    mcp: [],
    source: at,
    ...extra,
  };
}

export function catalog(...types: CatalogType[]): Catalog {
  return {
    app: { name: "test", version: "0.0.0" },
    config: {
      dataDir: ".wo/data",
      limits: defaultLimits(),
      mcp: { sessions: true, allowedOrigins: [] },
      allowedOrigins: [],
      maxBodyBytes: 1 << 20,
      concurrency: { running: 64, queued: 1024 },
    },
    types,
  };
}

/** A fresh temp folder; `cleanup()` removes it. */
export function tempDir(): { dir: string; file: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "wo-store-"));
  return { dir, file: join(dir, "data", "app.sqlite"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Author (unique email) ← Post (ref author, bool, struct, array, union, optional, index). */
export function blog(): Catalog {
  return catalog(
    type("Author", [field("name", scalar("Text")), field("email", scalar("Email"), { isUnique: true })]),
    type(
      "Post",
      [
        field("title", scalar("Text")),
        field("author", ref("Author")),
        field("published", scalar("Bool"), { default: { kind: "literal", value: false } }),
        field("status", union("Draft", "Live"), { default: { kind: "literal", value: "Draft" } }),
        opt("subtitle", scalar("Text")),
        field("meta", struct(field("words", scalar("Int")), opt("lang", scalar("Text")))),
        field("tags", array(scalar("Text"))),
        opt("score", scalar("Float")),
        field("order", scalar("Int"), { default: { kind: "literal", value: 0 } }),
        opt("related", array(ref("Post"))),
      ],
      { indexes: [{ name: "by_status", columns: ["status", "order"] }] },
    ),
  );
}

/** A row of blog()'s Author (the conformance catalog's Author takes `extra`, its balance). */
export const authorRow = (n: number, extra: Record<string, unknown> = {}) => ({
  name: `A${n}`,
  email: `a${n}@x.org`,
  ...extra,
});

/** A row of blog()'s Post by `authorId`, every required field given; `extra` overrides. */
export const postRow = (authorId: number, extra: Record<string, unknown> = {}) => ({
  title: "T",
  author: authorId,
  published: false,
  status: "Draft",
  meta: { words: 3 },
  tags: [],
  order: 0,
  ...extra,
});
