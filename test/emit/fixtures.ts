// Hand-built catalogs for the emitter tests: every field kind, scalar and exposure shape the
// emitters must handle, without depending on the parser or checker.
import type {
  Catalog,
  CatalogField,
  CatalogMethod,
  CatalogType,
  FieldDefault,
  FieldType,
} from "../../compiler/catalog.js";
import type { Block, Stmt } from "../../compiler/ast.js";
import { snakeCase } from "../../model/naming.js";
import { defaultLimits } from "../../model/app.js";

const at = (file = "app/blog.wo", line = 1) => ({ file, line, col: 1 });
const span = { file: "app/blog.wo", offset: 0, end: 0, line: 1, col: 1 };

interface FieldOptions {
  optional?: boolean;
  unique?: boolean;
  default?: FieldDefault;
  doc?: string;
}

export function field(name: string, type: FieldType, o: FieldOptions = {}): CatalogField {
  const relation = type.kind === "multi" || type.kind === "backlink";
  const computed = o.default?.kind === "computed";
  const isId = type.kind === "scalar" && type.scalar === "Id";
  const f: CatalogField = {
    name,
    type,
    isOptional: o.optional ?? false,
    isUnique: o.unique ?? false,
    isStored: !relation && !computed,
    isWritable: !relation && !computed && !isId,
    isRequiredOnCreate: !relation && !computed && !isId && !o.optional && o.default === undefined,
    source: at(),
  };
  if (o.default) f.default = o.default;
  if (o.doc) f.doc = o.doc;
  return f;
}

export const scalar = (s: Extract<FieldType, { kind: "scalar" }>["scalar"]): FieldType => ({
  kind: "scalar",
  scalar: s,
});

const idField = (): CatalogField => ({ ...field("id", scalar("Id")), isSynthetic: true });

export function type(
  name: string,
  fields: CatalogField[],
  o: {
    doc?: string;
    rest?: { path: string; ops: string[] }[];
    mcp?: string[];
    methods?: CatalogMethod[];
    keyword?: "type" | "class";
  } = {},
): CatalogType {
  const t: CatalogType = {
    name,
    snake: snakeCase(name),
    keyword: o.keyword ?? (o.methods?.length ? "class" : "type"),
    table: snakeCase(name),
    fields: [idField(), ...fields],
    indexes: [],
    services: [],
    methods: o.methods ?? [],
    rest: o.rest ?? [],
    mcp: o.mcp ?? [],
    source: at(),
  };
  if (o.doc) t.doc = o.doc;
  return t;
}

export function method(
  name: string,
  params: [string, FieldType][],
  o: { returns?: { type: FieldType; isArray: boolean }; txn?: "default"; doc?: string; statements?: Stmt[] } = {},
): CatalogMethod {
  const body: Block = { kind: "Block", statements: o.statements ?? [], span };
  const m: CatalogMethod = {
    name,
    params: params.map(([n, t]) => ({ name: n, type: t, source: at() })),
    body,
    source: at(),
  };
  if (o.returns) m.returns = o.returns;
  if (o.txn) m.txn = o.txn;
  if (o.doc) m.doc = o.doc;
  return m;
}

const name = (text: string) => ({ text, span });

/** A blog: every scalar, union with default, ref, array, struct, embedded type, relations, methods. */
export function blogCatalog(): Catalog {
  const author = type(
    "Author",
    [
      field("name", scalar("Text"), { doc: "Display name." }),
      field("email", scalar("Email"), { unique: true }),
      field("website", scalar("Url"), { optional: true }),
      field(
        "role",
        { kind: "union", variants: ["Writer", "Editor"] },
        { default: { kind: "literal", value: "Writer" } },
      ),
      field("posts", { kind: "backlink", target: "BlogPost", field: "author" }),
    ],
    {
      doc: "A person who writes posts.",
      rest: [{ path: "/api/authors", ops: ["list", "get", "create", "update", "delete"] }],
    },
  );
  const address = type("Address", [
    field("street", scalar("Text")),
    field("city", scalar("Text")),
    field("zip", scalar("Text"), { optional: true }),
  ]);
  const post = type(
    "BlogPost",
    [
      field("title", scalar("Text"), { doc: "Headline shown in lists." }),
      field("slug", scalar("Slug"), { unique: true }),
      field("body", scalar("Markdown")),
      field(
        "status",
        { kind: "union", variants: ["Draft", "Published", "Archived"] },
        { default: { kind: "literal", value: "Draft" } },
      ),
      field("author", { kind: "ref", target: "Author" }),
      field("editor", { kind: "ref", target: "Author" }, { optional: true }),
      field("tags", { kind: "array", element: scalar("Text") }),
      field("meta", {
        kind: "struct",
        fields: [
          field("words", scalar("Int")),
          field("lang", scalar("Text"), { optional: true }),
          field("draft", scalar("Bool"), { default: { kind: "literal", value: true } }),
        ],
      }),
      field("shipping", { kind: "embedded", type: "Address" }, { optional: true }),
      field("rating", scalar("Float"), { optional: true }),
      field("price", scalar("Money"), { default: { kind: "literal", value: 0 } }),
      field("sku", scalar("SKU"), { optional: true }),
      field("views", scalar("Int"), { default: { kind: "literal", value: 0 } }),
      field("featured", scalar("Bool"), { default: { kind: "literal", value: false } }),
      field("published_at", scalar("Timestamp"), { optional: true }),
      field("created_at", scalar("Timestamp"), { default: { kind: "now" } }),
      field("word_count", scalar("Int"), { default: { kind: "computed", text: "self.meta.words" } }),
      field("reviewers", { kind: "multi", target: "Author" }),
    ],
    {
      doc: "A blog post.",
      keyword: "class",
      rest: [{ path: "/api/posts", ops: ["list", "get", "create", "update", "delete", "publish", "subscribe", "me"] }],
      mcp: ["list", "get", "create", "update", "publish", "summary", "retitle"],
      methods: [
        method("publish", [], {
          txn: "default",
          doc: "Publish the post now",
          returns: { type: { kind: "embedded", type: "BlogPost" }, isArray: false },
          statements: [
            {
              kind: "UpdateStmt",
              target: { kind: "NameExpr", name: name("self"), span } as never,
              assignments: [],
              span,
            } as Stmt,
          ],
        }),
        method("summary", [["max", scalar("Int")]], { returns: { type: scalar("Text"), isArray: false } }),
        method(
          "retitle",
          [
            ["title", scalar("Text")],
            ["at", scalar("Timestamp")],
          ],
          {
            txn: "default",
            statements: [
              {
                kind: "IfStmt",
                condition: { kind: "NameExpr", name: name("x"), span } as never, // biome-ignore lint/suspicious/noThenProperty: the AST's if-statement branch, never awaited
                then: { kind: "Block", statements: [], span },
                else: {
                  kind: "Block",
                  statements: [{ kind: "InsertStmt", type: name("Comment"), entries: [], span }],
                  span,
                },
                span,
              } as Stmt,
            ],
          },
        ),
        method("tag_counts", [], { returns: { type: scalar("Int"), isArray: true } }),
      ],
    },
  );
  const comment = type(
    "Comment",
    [
      field("post", { kind: "ref", target: "BlogPost" }),
      field("text", scalar("Text")),
      field("votes", {
        kind: "array",
        element: { kind: "struct", fields: [field("who", scalar("Text")), field("up", scalar("Bool"))] },
      }),
    ],
    {
      rest: [{ path: "/api/comments", ops: ["list", "get", "create", "delete", "subscribe"] }],
      mcp: ["list", "get", "create", "delete"],
    },
  );
  const hidden = type("AuditEntry", [field("what", scalar("Text"))]);
  return {
    app: { name: "blog", version: "1.2.3", description: "A small blog." },
    config: {
      dataDir: ".wo/data",
      limits: defaultLimits(),
      mcp: { sessions: true, allowedOrigins: [] },
      allowedOrigins: [],
      maxBodyBytes: 1048576,
      concurrency: { running: 64, queued: 1024 },
    },
    types: [author, address, post, comment, hidden],
  };
}
