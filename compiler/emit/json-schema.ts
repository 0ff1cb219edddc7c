// JSON Schema (2020-12) for every type and operation of the catalog: row (output) schemas,
// operation input schemas and operation output schemas. The mapping table is spec/schemas.md;
// this module is its only implementation — tools, OpenAPI, validators and types.d.ts all
// derive from what it returns, so the wire, the docs and the checks cannot drift apart.
//
// Schemas carry no `$schema`/`$id`: MCP clients compile tool schemas with a default ajv
// instance (draft-07 dialect), and every keyword used here means the same in both dialects.
import {
  inCreateInput,
  inUpdateInput,
  searchedFields,
  isInRow,
  type Catalog,
  type CatalogField,
  type CatalogMethod,
  type CatalogType,
  type FieldType,
} from "../catalog.js";
import { idSchema as rowIdSchema, scalars, urlSchemePattern } from "../../model/scalars.js";
import type { BuildSchemas, OperationEntry } from "../../model/build-contract.js";
import { operationTable } from "./operation-table.js";
import { methodOf } from "./exposed-ops.js";
import { article, sentence } from "../../model/words.js";
import {
  fieldOperators,
  listEqualityFields,
  listFilterFields,
  listLimit,
  maxInValues,
  maxSearchText,
  searchControlName,
  sortValues,
} from "../../model/list-filters.js";
import type { RelationOp as ModelRelationOp } from "../../model/relations.js";
import type { Block } from "../ast.js";
import { checkSchemaKeyword } from "../../model/field-check.js";

/** A relation op of the compiler's catalog (method bodies as checked AST). */
type RelationOp = ModelRelationOp<Block>;

export type JsonSchema = { [keyword: string]: unknown };

/** Whether nested objects are inputs (writable fields, required rule, no unknown keys) or rows. */
type Mode = "input" | "row";

export class SchemaBuilder {
  private readonly types = new Map<string, CatalogType>();

  constructor(readonly catalog: Catalog) {
    for (const t of catalog.types) this.types.set(t.name, t);
  }

  typeNamed(name: string): CatalogType | undefined {
    return this.types.get(name);
  }

  // Rows are asked for by every output, tool, OpenAPI response and method result; build each once.
  private readonly rows = new Map<CatalogType, JsonSchema>();

  /** The row a store returns: every stored field present (`id` first); optional ones nullable. */
  row(type: CatalogType): JsonSchema {
    let row = this.rows.get(type);
    if (!row) this.rows.set(type, (row = this.buildRow(type)));
    return row;
  }

  private buildRow(type: CatalogType): JsonSchema {
    // Evaluated computed fields too: every read gives them (spec/language.md, "Computed fields").
    const stored = type.fields.filter(isInRow);
    return withDoc(
      {
        type: "object",
        title: type.name,
        properties: Object.fromEntries(stored.map((f) => [f.name, this.field(f, "row", [type.name])])),
        required: stored.map((f) => f.name),
      },
      type.doc,
    );
  }

  /**
   * `@readonly` fields are left out here only: an embedded copy of the type is written whole.
   * A literal default is stated with `default`, a `now()` default in the description.
   */
  create(type: CatalogType): JsonSchema {
    const schema = this.objectOf(type.fields.filter(inCreateInput), "input", [type.name]);
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const f of type.fields) {
      if (!properties[f.name] || !f.default) continue;
      if (f.default.kind === "literal") properties[f.name] = { ...properties[f.name], default: f.default.value };
      else if (f.default.kind === "now")
        properties[f.name] = withNote(properties[f.name]!, "Defaults to the time of creation.");
    }
    return schema;
  }

  /** `id` plus any field an update may change; only `id` is required (a partial update). */
  update(type: CatalogType): JsonSchema {
    const writable = type.fields.filter(inUpdateInput);
    return {
      type: "object",
      properties: {
        id: idSchema(`Id of the ${type.name} to update.`),
        ...Object.fromEntries(writable.map((f) => [f.name, this.field(f, "input", [type.name])])),
      },
      required: ["id"],
      additionalProperties: false,
    };
  }

  byId(type: CatalogType, verb: string): JsonSchema {
    return {
      type: "object",
      properties: { id: idSchema(`Id of the ${type.name} to ${verb}.`) },
      required: ["id"],
      additionalProperties: false,
    };
  }

  /**
   * Equality arguments (`field: value`), `where` (`{ field: { operator: value } }`), `sort`,
   * `count`, `limit`, `cursor`: spec/rest.md "List: filters, sorting and pagination".
   */
  list(type: CatalogType): JsonSchema {
    const stack = [type.name];
    return {
      type: "object",
      properties: {
        ...Object.fromEntries(
          listEqualityFields(type).map((f) => [f.name, withDoc(this.value(f.type, "input", stack), filterDoc(f))]),
        ),
        where: {
          type: "object",
          description:
            "Conditions that must all hold, per field: { field: { operator: value } }, e.g. " +
            '{ "id": { "gte": 10, "lt": 20 } }. Each field lists the operators it takes: ' +
            "eq, ne (rows whose value is null match too), lt, lte, gt, gte, in (one of a list), " +
            "contains (text, ignoring case), null (true: is null; false: has a value).",
          properties: Object.fromEntries(listFilterFields(type).map((f) => [f.name, this.operators(f, stack)])),
          additionalProperties: false,
        },
        sort: {
          type: "string",
          enum: sortValues(type),
          default: "id",
          description:
            "Order of the rows: a field name for ascending, '-' and the name for descending; ties go by id. A cursor only continues the sort it came from.",
        },
        count: {
          type: "boolean",
          default: false,
          description: "true: the answer also carries total, the number of rows matching the filters across all pages.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: listLimit.maximum,
          default: listLimit.default,
          description: `Maximum number of rows to return (1..${listLimit.maximum}, default ${listLimit.default}).`,
        },
        cursor: { type: "string", description: "Opaque cursor: the nextCursor of the previous page." },
        ...(searchedFields(type).length > 0 ? { [searchControlName]: searchSchema(type) } : {}),
      },
      additionalProperties: false,
    };
  }

  /** The filters of `GET P/live`: the list's, without sort, count, limit and cursor. */
  liveFilters(type: CatalogType): JsonSchema {
    const properties = { ...(this.list(type).properties as Record<string, JsonSchema>) };
    for (const name of ["sort", "count", "limit", "cursor", searchControlName]) delete properties[name];
    return { type: "object", properties, additionalProperties: false };
  }

  /** The `where` entry of one field: the operators its type takes, each with its operand. */
  private operators(f: CatalogField, stack: string[]): JsonSchema {
    const { description, ...operand } = this.value(f.type, "input", stack);
    const properties: Record<string, JsonSchema> = {};
    for (const op of fieldOperators(f)) {
      if (op === "in") properties.in = { type: "array", items: operand, minItems: 1, maxItems: maxInValues };
      else if (op === "contains") properties.contains = { type: "string" };
      else if (op === "null") properties.null = { type: "boolean" };
      else properties[op] = operand;
    }
    const about = [f.doc ? sentence(f.doc) : "", typeof description === "string" ? description : ""]
      .filter(Boolean)
      .join(" ");
    return withDoc({ type: "object", properties, additionalProperties: false, minProperties: 1 }, about || undefined);
  }

  /** A method call: the receiving row's `id` plus every parameter, all required. */
  methodInput(type: CatalogType, method: CatalogMethod): JsonSchema {
    return {
      type: "object",
      properties: {
        id: idSchema(`Id of the ${type.name} to call ${method.name} on.`),
        ...Object.fromEntries(
          method.params.map((p) => [p.name, withDoc(this.value(p.type, "input", [type.name]), p.doc)]),
        ),
      },
      required: ["id", ...method.params.map((p) => p.name)],
      additionalProperties: false,
    };
  }

  /**
   * What a method returns (REST body, MCP `structuredContent.result`). Always nullable: a body
   * may end without `return`, which yields null (spec/schemas.md, "Method results").
   */
  methodResult(method: CatalogMethod): JsonSchema {
    if (!method.returns) return { type: "null" };
    let one = this.returnValue(method.returns.type);
    // Projected rows carry only the keys the select names (spec/language.md, "Return values"):
    // the row schema cut down to them; a projected optional field stays nullable.
    const projection = method.returnsProjection;
    if (projection) {
      const properties = one.properties as Record<string, JsonSchema>;
      one = {
        ...one,
        properties: Object.fromEntries(projection.fields.map((f) => [f, properties[f]!])),
        required: projection.required,
      };
    }
    return method.returns.isArray ? nullable({ type: "array", items: one }) : nullable(one);
  }

  /** The list result: one page of rows. */
  page(type: CatalogType): JsonSchema {
    return {
      type: "object",
      properties: {
        items: { type: "array", items: this.row(type) },
        nextCursor: { type: "string", description: "Pass as `cursor` to get the next page; absent on the last page." },
        total: {
          type: "integer",
          minimum: 0,
          description: "Rows matching the filters across all pages; present when the input asked for count.",
        },
      },
      required: ["items"],
    };
  }

  /** The input and output of a relation op (spec/rest.md "Relations"). */
  relation(type: CatalogType, r: RelationOp): { input: JsonSchema; output: JsonSchema } {
    const { field, target, path } = r.relation;
    const id = idSchema(
      `Id of the ${type.name} whose ${field.name} to ${r.access === "read" ? "list" : r.access === "add" ? "add to" : "remove from"}.`,
    );
    if (r.access === "read") {
      const { limit, cursor } = this.list(target).properties as Record<string, JsonSchema>;
      return {
        input: { type: "object", properties: { id, limit, cursor }, required: ["id"], additionalProperties: false },
        // A relation read takes no `count`, so its page never has a total.
        output: withoutTotal(this.page(target)),
      };
    }
    const link = (path as Extract<RelationOp["relation"]["path"], { kind: "link" }>).link;
    const column = (path as { targetColumn: string }).targetColumn;
    const targetId = idSchema(`Id of the ${target.name} to ${r.access === "add" ? "link" : "unlink"}.`);
    if (r.access === "remove") {
      return {
        input: {
          type: "object",
          properties: { id, [column]: targetId },
          required: ["id", column],
          additionalProperties: false,
        },
        output: {
          type: "object",
          properties: {
            removed: { type: "boolean", description: "False when there was no such link (nothing changed)." },
          },
          required: ["removed"],
        },
      };
    }
    // The link's own fields, as its create takes them; the endpoints come from id and the target.
    const ends = [link.link!.fromField, link.link!.toField];
    const own = this.objectOf(
      link.fields.filter((f) => inCreateInput(f) && !ends.includes(f.name)),
      "input",
      [link.name],
    );
    return {
      input: {
        type: "object",
        properties: { id, [column]: targetId, ...(own.properties as object) },
        required: ["id", column, ...((own.required as string[] | undefined) ?? [])],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: {
          created: {
            type: "boolean",
            description: "False when the rows were already linked (the existing link is returned unchanged).",
          },
          link: this.row(link),
        },
        required: ["created", "link"],
      },
    };
  }

  deleted(type: CatalogType): JsonSchema {
    return {
      type: "object",
      properties: { deleted: { const: true }, id: idSchema(`Id of the deleted ${type.name}.`) },
      required: ["deleted", "id"],
    };
  }

  private returnValue(t: FieldType): JsonSchema {
    // A declared type returned by value is a row of that type (with its id), not an embedded copy.
    if (t.kind === "embedded") {
      const target = this.types.get(t.type);
      if (target) return this.row(target);
    }
    return this.value(t, "row", []);
  }

  private field(f: CatalogField, mode: Mode, stack: string[]): JsonSchema {
    let schema = this.value(f.type, mode, stack);
    if (f.check) {
      // A check is never looser than the scalar's own bounds (the checker keeps its number within
      // them), so its keyword may replace `minimum`/`maximum` (spec/schemas.md, "Checks").
      const { keyword, value } = checkSchemaKeyword(f.check);
      schema = { ...schema, [keyword]: value };
    }
    return withDoc(f.isOptional ? nullable(schema) : schema, f.doc);
  }

  private objectOf(fields: CatalogField[], mode: Mode, stack: string[]): JsonSchema {
    const chosen = fields.filter((f) => (mode === "input" ? f.isWritable : f.isStored));
    const required = chosen.filter((f) => f.isRequiredOnCreate).map((f) => f.name);
    const schema: JsonSchema = {
      type: "object",
      properties: Object.fromEntries(chosen.map((f) => [f.name, this.field(f, mode, stack)])),
    };
    if (required.length > 0) schema.required = required;
    if (mode === "input") schema.additionalProperties = false;
    return schema;
  }

  value(t: FieldType, mode: Mode, stack: string[]): JsonSchema {
    switch (t.kind) {
      case "scalar":
        if (t.schemes) return { ...scalars[t.scalar].schema, pattern: urlSchemePattern(t.schemes) };
        return { ...scalars[t.scalar].schema };
      case "union":
        return { type: "string", enum: [...t.variants] };
      case "ref":
        return idSchema(`Id of ${article(t.target)} ${t.target}.`);
      case "array":
        return { type: "array", items: this.value(t.element, mode, stack) };
      case "struct":
        return this.objectOf(t.fields, mode, stack);
      case "embedded": {
        const target = this.types.get(t.type);
        // A type that embeds itself (directly or not) cannot be expanded forever; stop at any object.
        if (!target || stack.includes(t.type)) return { type: "object" };
        const fields = target.fields.filter((f) => f.name !== "id");
        return withDoc(this.objectOf(fields, mode, [...stack, t.type]), target.doc);
      }
      case "multi":
      case "backlink":
        // Never stored and never accepted: the checker marks these fields not stored/writable,
        // so only a method parameter could reach here; it gets no constraint.
        return {};
      default:
        return assertNever(t);
    }
  }
}

/** Every schema of the build: rows for all types, inputs/outputs for every operation of the table. */
export function emitSchemas(
  catalog: Catalog,
  b = new SchemaBuilder(catalog),
  table: readonly OperationEntry[] = operationTable(catalog, b),
): BuildSchemas {
  const rows: Record<string, object> = {};
  const inputs: Record<string, object> = {};
  const outputs: Record<string, object> = {};
  for (const type of sortedTypes(catalog)) rows[type.snake] = b.row(type);
  for (const e of table) {
    inputs[e.name] = e.inputSchema;
    // The table holds the tool's output; a method's own result is what it wraps as `result`.
    outputs[e.name] =
      e.kind === "method" ? (e.outputSchema as { properties: { result: object } }).properties.result : e.outputSchema;
  }
  return { rows: sortKeys(rows), inputs: sortKeys(inputs), outputs: sortKeys(outputs) };
}

export function operationSchemas(
  b: SchemaBuilder,
  type: CatalogType,
  op: string,
): { input: JsonSchema; output: JsonSchema } | undefined {
  switch (op) {
    case "list":
      return { input: b.list(type), output: b.page(type) };
    case "get":
      return { input: b.byId(type, "get"), output: b.row(type) };
    case "create":
      return { input: b.create(type), output: b.row(type) };
    case "update":
      return { input: b.update(type), output: b.row(type) };
    case "delete":
      return { input: b.byId(type, "delete"), output: b.deleted(type) };
    case "me":
      // The caller names no row: it is the one whose id is `$session.user`.
      return { input: { type: "object", properties: {}, additionalProperties: false }, output: b.row(type) };
    default: {
      const method = methodOf(type, op);
      return method ? { input: b.methodInput(type, method), output: b.methodResult(method) } : undefined;
    }
  }
}

export function sortedTypes(catalog: Catalog): CatalogType[] {
  return [...catalog.types].sort((a, b) => compareText(a.snake, b.snake));
}

/** Code-unit order: independent of locale, so output is the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The record with its keys in code-unit order (compareText). */
export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareText(a, b)));
}

function withoutTotal(page: JsonSchema): JsonSchema {
  const { total: _total, ...properties } = page.properties as Record<string, JsonSchema>;
  return { ...page, properties };
}

function idSchema(description: string): JsonSchema {
  return { ...rowIdSchema, description };
}

function filterDoc(f: CatalogField): string {
  return `Only rows whose ${f.name} equals this value.${f.doc ? ` ${f.name}: ${f.doc}` : ""}`;
}

/** Adds null to a schema: `type` becomes a list, an `enum` gains null; `{}` already allows it. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined) {
    return Object.keys(schema).length === 0 ? schema : { anyOf: [schema, { type: "null" }] };
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (types.includes("null")) return schema;
  const out: JsonSchema = { ...schema, type: [...types, "null"] };
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out;
}

/** Appends a note to a schema's description (after the field's doc). */
function withNote(schema: JsonSchema, note: string): JsonSchema {
  return { ...schema, description: schema.description ? `${String(schema.description)} ${note}` : note };
}

function withDoc(schema: JsonSchema, doc: string | undefined): JsonSchema {
  if (!doc) return schema;
  // Field docs come first in the key order for readers; a scalar's own note (Money) follows it.
  const { description, ...rest } = schema;
  return { description: description ? `${doc} ${String(description)}` : doc, ...rest };
}

function assertNever(x: never): never {
  throw new Error(`unhandled kind: ${JSON.stringify(x)}`);
}

/** The `query` of a searched type's list (spec/rest.md, "Search"): validated by the list operation. */
function searchSchema(type: CatalogType): JsonSchema {
  return {
    type: "string",
    maxLength: maxSearchText,
    description: `Full-text search over ${searchedFields(type).join(", ")}: the rows holding every word (the last one also as the start of a word), most relevant first unless a sort is given. Words are letters and digits; other characters only separate them.`,
  };
}
