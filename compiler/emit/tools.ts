// The MCP tool catalog and resource templates, from each type's `mcp` exposure (catalog.ts).
// Names come from model/naming.ts; schemas from json-schema.ts. Agents choose tools by
// title and description, so both are written as sentences built from the declarations' `--`
// docs plus what the operation does and which fields it needs.
//
// Output schemas follow spec/schemas.md: the operation's result for CRUD tools, and
// `{ result }` around a method's return value (MCP structured content must be an object).
import {
  inCreateInput,
  inUpdateInput,
  readsRowsOverMcp,
  searchedFields,
  type Catalog,
  type CatalogField,
  type CatalogMethod,
  type CatalogType,
  type FieldType,
} from "../catalog.js";
import { manifestTool, type ManifestTool, type Manifest, type OperationEntry } from "../../model/build-contract.js";
import { toolName } from "../../model/naming.js";
import { listControlNames, listLimit } from "../../model/list-filters.js";
import { sortedTypes, type JsonSchema } from "./json-schema.js";
import { blockHas, writeStatements } from "./method-body.js";
import { article, capitalize, pluralWords, sentence, words } from "../../model/words.js";
import { fieldTypeText } from "../../model/field-type-text.js";
import type { RelationAccess, RelationOp } from "../../model/relations.js";
import { refFieldsInto, typesByName } from "../../model/type-index.js";

/** The MCP tools: the operations the types' MCP exposure brings, as the table describes them. */
export function emitTools(table: readonly OperationEntry[]): ManifestTool[] {
  return table.filter((e) => e.mcp).map(manifestTool);
}

/** `wo://<snake>/{id}` per type whose MCP exposure has `get`; reading one equals `GET P/:id` on the row. */
export function emitResourceTemplates(catalog: Catalog): Manifest["resourceTemplates"] {
  return sortedTypes(catalog)
    .filter(readsRowsOverMcp)
    .map((t) => ({ uriTemplate: `wo://${t.snake}/{id}`, name: t.snake }));
}

export function methodOutput(result: JsonSchema): JsonSchema {
  return { type: "object", properties: { result }, required: ["result"] };
}

export const builtinAnnotations = {
  list: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  me: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  get: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  update: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
} satisfies Record<string, ManifestTool["annotations"]>;

/**
 * Hints from what the body can do: a method whose body has no `insert`, `update` or `delete`
 * is read-only and idempotent; one that can change
 * or remove existing rows (`update`/`delete`) is destructive; inserts only add.
 */
export function methodAnnotations(catalog: Catalog, method: CatalogMethod): ManifestTool["annotations"] {
  const writes = blockHas(method.body, writeStatements, catalog);
  if (!writes) return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: blockHas(method.body, ["UpdateStmt", "DeleteStmt"], catalog),
    idempotentHint: false,
    openWorldHint: false,
  };
}

export const relationAnnotations = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  add: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  remove: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
} satisfies Record<RelationAccess, ManifestTool["annotations"]>;

/** "Post: tags" (as a method's title reads), "Add tag to post", "Remove tag from post". */
export function relationTitle(type: CatalogType, r: RelationOp): string {
  const one = words(type.name);
  const target = words(r.relation.target.name);
  if (r.access === "read") return toolTitle(type, r.op);
  return r.access === "add" ? `Add ${target} to ${one}` : `Remove ${target} from ${one}`;
}

export function relationDescription(type: CatalogType, r: RelationOp): string {
  const one = words(type.name);
  const { field, target, path } = r.relation;
  const targets = pluralWords(target.name);
  const lead = field.doc ? `${sentence(field.doc)} ` : "";
  if (r.access === "read") {
    const which =
      path.kind === "link"
        ? `the ${targets} linked to it, in the order they were linked`
        : `the ${targets} whose ${path.column} is this ${one}, in ascending id order`;
    return (
      `${lead}Lists ${words(field.name)} of the ${one} with the given id: ${which}. ` +
      `Returns { items, nextCursor }: at most \`limit\` rows (default ${listLimit.default}, max ${listLimit.maximum}); pass nextCursor back as \`cursor\` for the next page.`
    );
  }
  const link = path as Extract<RelationOp["relation"]["path"], { kind: "link" }>;
  if (r.access === "remove") {
    return `${lead}Removes the ${words(target.name)} given by ${link.targetColumn} from ${field.name} of the ${one} with the given id (both rows stay). Returns { removed }; removing a link that does not exist changes nothing.`;
  }
  const ends = [link.link.link!.fromField, link.link.link!.toField];
  const own = link.link.fields.filter((f) => inCreateInput(f) && !ends.includes(f.name));
  return (
    `${lead}Adds the ${words(target.name)} given by ${link.targetColumn} to ${field.name} of the ${one} with the given id` +
    (own.length ? `, with the link's own fields ${fieldList(own)}` : "") +
    `. Returns { created, link }: adding a link that exists already returns it unchanged with created: false.`
  );
}

/**
 * CRUD tools read as an action on the type ("List blog posts", "Create blog post"); a method
 * reads as the type and the method's name ("Account: transfer", "Product: current price"),
 * since a method name may be a verb or a noun and either reads naturally after the type.
 */
export function toolTitle(type: CatalogType, op: string): string {
  const one = words(type.name);
  switch (op) {
    case "list":
      return `List ${pluralWords(type.name)}`;
    case "get":
    case "create":
    case "update":
    case "delete":
      return `${capitalize(op)} ${one}`;
    case "me":
      return `My ${one}`;
    default:
      return `${capitalize(one)}: ${words(op)}`;
  }
}

/**
 * What an operation does, for an MCP tool or (`rest`) an OpenAPI operation: the same text but
 * for how a list is queried, and for the related tools, which only MCP callers have.
 */
export function operationDescription(
  catalog: Catalog,
  type: CatalogType,
  op: string,
  method: CatalogMethod | undefined,
  surface: "mcp" | "rest",
): string {
  const one = words(type.name);
  const a = `${article(one)} ${one}`;
  const lead = (doc: string | undefined) => (doc ? `${sentence(doc)} ` : "");
  const creatable = type.fields.filter(inCreateInput);
  const updatable = type.fields.filter(inUpdateInput);
  // Named so an agent knows not to send them (and why the row has them).
  const readonly = type.fields.filter((f) => f.isWritable && !inCreateInput(f));
  const fixed = type.fields.filter((f) => creatable.includes(f) && !inUpdateInput(f));
  const links = surface === "mcp" ? related(catalog, type) : "";
  switch (op) {
    case "list":
      return `${lead(type.doc)}Lists ${pluralWords(type.name)}, in ascending id order unless ${listHowTo[surface]}${searchHowTo(type, surface)}${links}`;
    case "get":
      return `${lead(type.doc)}Gets one ${one} by id.${links}`;
    case "create": {
      const required = creatable.filter((f) => f.isRequiredOnCreate);
      const optional = creatable.filter((f) => !f.isRequiredOnCreate);
      return (
        `${lead(type.doc)}Creates ${a} and returns the stored row with its new id.` +
        (required.length ? ` Required: ${fieldList(required)}.` : " No field is required.") +
        (optional.length ? ` Optional: ${fieldList(optional)}.` : "") +
        (readonly.length ? ` Read-only (set by the app, not accepted): ${readonly.map((f) => f.name).join(", ")}.` : "")
      );
    }
    case "update":
      return (
        `${lead(type.doc)}Updates ${a} by id: only the fields given change` +
        (updatable.length ? ` (any of ${fieldList(updatable)})` : "") +
        `; returns the updated row. Required: id.` +
        (readonly.length + fixed.length
          ? ` Not accepted: ${[...readonly.map((f) => `${f.name} (read-only)`), ...fixed.map((f) => `${f.name} (fixed at creation)`)].join(", ")}.`
          : "")
      );
    case "delete":
      return `${lead(type.doc)}Deletes ${a} by id. Fails while other rows still reference it.`;
    case "me":
      return `${lead(type.doc)}Gets the caller's own ${one}: the one whose id is the caller's user id ($session.user). Takes no input. Fails when the caller has no user id or no such ${one} exists.${links}`;
    default: {
      if (!method) return `${lead(type.doc)}Calls ${op} on ${a}.`;
      const params = method.params.map((p) => `${p.name} (${typeText(p.type)})`);
      const returns = method.returns
        ? ` Returns { result }: ${method.returns.isArray ? "a list of " : ""}${typeText(method.returns.type)}.`
        : " Returns { result: null }.";
      return (
        `${lead(method.doc)}Calls ${method.name} on the ${one} with the given id` +
        (params.length ? `, with ${params.join(", ")}` : "") +
        `.${returns}` +
        (methodAnnotations(catalog, method).readOnlyHint
          ? " Changes nothing."
          : " Runs in one transaction: all of its writes happen, or none.")
      );
    }
  }
}

/** A searched type's list also takes words (spec/rest.md, "Search"). */
function searchHowTo(type: CatalogType, surface: "mcp" | "rest"): string {
  const fields = searchedFields(type);
  if (fields.length === 0) return "";
  const name = surface === "mcp" ? "`query`" : "`q`";
  return ` ${name} searches ${fields.join(", ")} for words: the rows holding them all, most relevant first unless \`sort\` is given.`;
}

const listHowTo = {
  mcp:
    "`sort` names a field ('-field' for descending). Filter by equality with field: value, or with `where`: " +
    "{ field: { eq, ne, lt, lte, gt, gte, in, contains, null } } (each field's entry lists the operators it takes). " +
    `Returns { items, nextCursor }: at most \`limit\` rows (default ${listLimit.default}, max ${listLimit.maximum}); ` +
    "pass nextCursor back as `cursor`, with the same sort, for the next page. `count: true` adds total.",
  rest:
    "`sort` names a field (`-field` for descending). Filter by equality with `field=value`, or with an operator: " +
    "`field[op]=value`, op one of eq, ne, lt, lte, gt, gte, in (comma-separated values), contains, null (true or false). " +
    `Returns { items, nextCursor }: at most \`limit\` rows (default ${listLimit.default}, max ${listLimit.maximum}); ` +
    "pass nextCursor back as `cursor`, with the same sort, for the next page. `count=true` adds total.",
};

/**
 * How the type's rows connect to others through MCP tools: each ref field names the tool that
 * reads its target, and each type holding refs to this one the list call that finds them.
 */
function related(catalog: Catalog, type: CatalogType): string {
  const parts: string[] = [];
  for (const f of type.fields) {
    if (!f.isStored || f.type.kind !== "ref") continue;
    const targetName = f.type.target;
    const target = typesByName(catalog).get(targetName);
    const reader = target?.mcp.includes("get") ? ` (${toolName(targetName, "get")} reads it)` : "";
    parts.push(`${f.name} is the id of ${article(words(targetName))} ${words(targetName)}${reader}`);
  }
  // From the catalog's index of refs: scanning every type here made the tools quadratic.
  for (const { owner: other, field: f } of refFieldsInto(catalog, type.name)) {
    if (!other.mcp.includes("list")) continue;
    const filter = (listControlNames as readonly string[]).includes(f.name)
      ? `{ where: { ${f.name}: { eq: <id> } } }`
      : `{ ${f.name}: <id> }`;
    parts.push(
      `${toolName(other.name, "list")} with ${filter} lists the ${pluralWords(other.name)} whose ${f.name} it is`,
    );
  }
  return parts.length > 0 ? ` Related: ${parts.join("; ")}.` : "";
}

function fieldList(fields: CatalogField[]): string {
  return fields.map((f) => `${f.name} (${typeText(f.type)}${f.isOptional ? ", nullable" : ""})`).join(", ");
}

/** A field type as a reader writes it in `.wo`, with refs worded for an agent: `id of Author`. */
export function typeText(t: FieldType): string {
  return fieldTypeText(t, (target) => `id of ${target}`);
}
