// The MCP methods wo serves, for both eras: initialize/ping (2025 only), server/discover
// (2026-07-28 only), tools/*, resources/*, completion/complete. Handlers return plain result
// objects; index.ts adds what an era puts around them (2026-07-28: resultType, serverInfo in
// _meta, ttlMs/cacheScope) and writes them to the wire.
//
// Tools and resources come from the build (app.json's operations table, resource templates and
// model), never registered by hand, and tools/call goes through the same operations REST uses. MCP shows only what a type
// exposes to it: rows are readable (template, resources/read, id completion) only where `get`
// is exposed, and a row of any other type answers exactly like a URI that names nothing.
// Operation failures become tool results with isError (an agent can read and act on them);
// malformed requests and unknown names are JSON-RPC errors.

import { readsRowsOverMcp, type CatalogType } from "../../model/app.js";
import { fieldSummaries } from "../field-summary.js";
import { jsonDigest } from "../json-digest.js";
import {
  manifestTool,
  type AppContract,
  type CallContext,
  type ManifestTool,
  type Operation,
} from "../../model/build-contract.js";
import { isOwner, ownerPrincipal, type Principal } from "../../model/principal.js";
import { readFilter } from "../operations/read-policy.js";
import { OperationError, RateLimitedError, type OperationErrorKind } from "../../model/errors.js";
import type { Store } from "../../model/store.js";
import { readCall, surfaceCall } from "../operations/call-context.js";
import { paginate } from "./cursor.js";
import { eventResources, type EventResources } from "./event-resources.js";
import { ErrorCode, isPlainObject, RpcError, SerializedResult, type Params } from "./json-rpc.js";
import { LEGACY_VERSIONS, MODERN_VERSION } from "./era.js";
import { sentence } from "../../model/words.js";
import { mayCall } from "../operations/policy.js";
import type { Admission } from "../operations/bind.js";
import { hasPolicies } from "../operations/row-policy.js";

export type Era = "legacy" | "modern";

export interface MethodContext {
  era: Era;
  /**
   * Aborted by notifications/cancelled, a client disconnect, or session termination. Read it
   * only where a call can still be stopped before it commits: creating it is not free (it
   * materializes the request's signal), and read-only calls have nothing to roll back.
   */
  readonly signal: AbortSignal;
  /** Who is calling (runtime/edge.ts); absent: the owner. */
  readonly principal?: Principal | undefined;
  /** The trace of the method call's span, set while it runs (calls.ts): its operation joins it. */
  trace?: unknown;
  /** Whom per-caller budgets count the call against (McpRequest.caller). */
  readonly caller: string;
}

export type Handler = (params: Params, ctx: MethodContext) => unknown | Promise<unknown>;

export interface MethodDeps {
  catalog: AppContract;
  operations: Record<string, Operation>;
  store: Store;
  serverInfo: { name: string; version: string };
  /** Admits `wo://events` reads as an operation's read (rate limit, slot); absent: at once. */
  admit?: Admission;
  pageSize: number;
  log: (line: string) => void;
  /** `wo run --watch`: lists can change while serving, and the capabilities say so. */
  listChanged?: boolean;
  /** 2025-era sessions are on: only then can resources/subscribe notify anyone (index.ts). */
  sessions: boolean;
}

export interface MethodTable {
  instructions: string;
  /** tools/list differs between callers (some type has policy lines): its results are private to the caller. */
  toolsVary: boolean;
  /** What tools/list and resources/list (with templates and schema texts) show, as digests to compare: a swap notifies when one differs. */
  listings(): { tools: string; resources: string };
  /**
   * The row URI `uri` names when this client may read it (the same rule and the same answer as
   * resources/read: an unknown, unreadable or missing row is the era's not-found RpcError).
   */
  readableRow(uri: unknown, era: Era, principal?: Principal): Promise<string>;
  /**
   * Whether `principal` may read the row `uri` names now (its read policy, through the get
   * operation): a row subscription tells a caller only of changes to rows it may read.
   */
  mayRead(uri: string, principal: Principal | undefined): Promise<boolean>;
  /** `wo://<t>/<id>` of a changed row, when its type's rows are resources; else undefined. */
  rowUri(table: string, id: number): string | undefined;
  /** The application event resources (`wo://events`, event-resources.ts). */
  events: EventResources;
  /** Maps, not objects: a method name from the wire must never find `constructor` or `__proto__`. */
  legacy: ReadonlyMap<string, Handler>;
  modern: ReadonlyMap<string, Handler>;
}

const MIME = "application/json";
/** The CallContext of an MCP call: who is calling, and for a call that can write, what stops it. */
function mcpCall(ctx: MethodContext, canWrite: boolean): CallContext {
  const principal = ctx.principal ?? ownerPrincipal;
  // Only an anonymous caller is counted by its connection; a named principal the limiter knows
  // by name (so its reads keep their shared context), and the owner is not limited.
  const caller = principal.via === "anonymous" ? ctx.caller : undefined;
  return surfaceCall("mcp", principal, canWrite ? ctx.signal : undefined, caller, ctx.trace);
}
const TEMPLATE_SUFFIX = "/{id}";

function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(ErrorCode.InvalidParams, message, data);
}

/** 2025 revisions need an object at the root of outputSchema/structuredContent. */
function legacyTool(tool: ManifestTool): ManifestTool {
  const schema = tool.outputSchema as { type?: unknown; $schema?: string } | undefined;
  if (schema === undefined || schema.type === "object") return tool;
  const { $schema, ...inner } = schema;
  return {
    ...tool,
    outputSchema: {
      ...($schema ? { $schema } : {}),
      type: "object",
      properties: { result: inner },
      required: ["result"],
    },
  };
}

function hasObjectOutput(tool: Pick<ManifestTool, "outputSchema">): boolean {
  return (tool.outputSchema as { type?: unknown } | undefined)?.type === "object";
}

const errorPrefix: Record<OperationErrorKind, string> = {
  invalid_input: "Invalid input",
  not_found: "Not found",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  conflict: "Conflict",
  aborted: "Refused",
  unprocessable: "Unprocessable",
  cancelled: "Cancelled",
  busy: "Busy",
  rate_limited: "Rate limited",
  storage_full: "Storage full",
  unavailable: "Database unavailable",
  internal: "Internal error",
};

/** The text of an isError tool result: what failed and, per field, how to fix the input. */
function errorText(err: OperationError): string {
  const lines = [`${errorPrefix[err.kind]}: ${err.message}`];
  for (const d of err.details) lines.push(`- ${d.path || "/"}: ${d.message}`);
  if (err.truncated > 0) lines.push(`- … and ${err.truncated} more not listed`);
  return lines.join("\n");
}

/** The body of `wo://schema/t`: the type's fields as an agent needs them to write input. */
function schemaDocument(type: CatalogType, tools: string[]): string {
  return JSON.stringify({
    type: type.name,
    ...(type.doc ? { description: type.doc } : {}),
    ...(readsRowsOverMcp(type) ? { uriTemplate: `wo://${type.snake}${TEMPLATE_SUFFIX}` } : {}),
    fields: fieldSummaries(type),
    tools,
  });
}

function instructionsFor(catalog: AppContract, exposed: CatalogType[], toolsOf: (t: CatalogType) => string[]): string {
  const head = sentence(
    `${catalog.app.name} ${catalog.app.version}${catalog.app.description ? `: ${catalog.app.description}` : ""}`,
  );
  const lines = [
    head,
    "A wo app: typed records in an embedded database. Every tool validates its input against inputSchema and returns the stored row as structuredContent; failures come back as tool results with isError and a message naming the field to fix.",
  ];
  for (const t of exposed) {
    const rows = readsRowsOverMcp(t) ? ` rows are resources wo://${t.snake}/{id},` : "";
    lines.push(
      `- ${t.name}${t.doc ? ` (${t.doc})` : ""}: tools ${toolsOf(t).join(", ")};${rows} fields in wo://schema/${t.snake}.`,
    );
  }
  lines.push(
    "List tools filter with field: value or `where: { field: { op: value } }`, order with `sort`, page with `cursor`/`nextCursor`, and count with `count: true`.",
  );
  return lines.join("\n");
}

/** `text` ending in exactly one sentence mark: a description may already end with one. */
/** Rows an id completion looks at: enough for a person typing, bounded so one call stays cheap. */
const completionWindow = 1000;
/** The most values one completion answer may carry (MCP's completion utility). */
const maxCompletionValues = 100;

export function createMethods(deps: MethodDeps): MethodTable {
  const { catalog, operations, store, serverInfo, pageSize } = deps;
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const mcpOperations = catalog.operations.filter((o) => o.mcp).sort(byName);
  // The tools as tools/list shows them, made on its first call: their schemas are most of the
  // build's text (the operations' faces, parsed when first read: runtime/load-build.ts).
  let shownTools: { modern: ManifestTool[]; legacy: ManifestTool[] } | undefined;
  const tools = () => {
    if (shownTools === undefined) {
      const modern = mcpOperations.map(manifestTool);
      shownTools = { modern, legacy: modern.map(legacyTool) };
    }
    return shownTools;
  };
  // spec/schemas.md, "Method results over MCP": a method tool answers `{ result: <value> }`.
  const methodTools = new Set(mcpOperations.filter((o) => o.kind === "method").map((o) => o.name));
  const fingerprint = `${serverInfo.version}.${mcpOperations.length}.${catalog.resourceTemplates.length}`;

  // A type's tools, by the table's `type` (never a name prefix: `Blog` must not get the tools
  // of `BlogPost`), in list order.
  const toolsByType = new Map<string, string[]>();
  for (const { name, type } of mcpOperations) {
    const list = toolsByType.get(type);
    if (list) list.push(name);
    else toolsByType.set(type, [name]);
  }
  const toolsOf = (t: CatalogType): string[] => toolsByType.get(t.name) ?? [];

  // A caller is shown the tools it holds some grant for (spec/policies.md, "Tools a caller is
  // shown"): the owner all of them; anyone else those whose action a policy line (or, on a type
  // without lines, being identified) grants it. Lists are filtered per call: a grant depends on
  // the caller's role and on which session values it has, and no answer is shared.
  const typeByName = new Map(catalog.types.map((t) => [t.name, t]));
  const operationOf = new Map(mcpOperations.map((o) => [o.name, o]));
  const toolsVary = catalog.types.some((t) => t.mcp.length > 0 && hasPolicies(t));
  const shownTo = (name: string, principal: Principal | undefined): boolean => {
    const entry = operationOf.get(name);
    if (entry === undefined) return false;
    // An operation of no declared type (an embedder's own) has no policy lines to keep.
    const type = typeByName.get(entry.type);
    return type === undefined || mayCall(type, entry, principal);
  };
  const visibleTools = <T extends ManifestTool>(all: readonly T[], principal: Principal | undefined): readonly T[] =>
    principal === undefined || principal.via === "owner" ? all : all.filter((t) => shownTo(t.name, principal));
  // `get` of each type whose MCP exposure has it: what resources/read runs.
  const getOperation = new Map(mcpOperations.filter((o) => o.kind === "get").map((o) => [o.type, o.name]));

  // Types whose rows are resources (`wo://<snake>/{id}`): a template whose type exposes `get`
  // over MCP. Both are asked, so a build that lists a template for a type without `get` still
  // cannot read its rows.
  const bySnake = new Map(catalog.types.map((t) => [t.snake, t]));
  const templateTypes = new Map<string, CatalogType>();
  const templates: (AppContract["resourceTemplates"][number] & { mimeType: string })[] = [];
  for (const rt of catalog.resourceTemplates) {
    const m = /^wo:\/\/([a-z0-9_]+)\/\{id\}$/.exec(rt.uriTemplate);
    const t = m ? bySnake.get(m[1]!) : undefined;
    if (!t || !readsRowsOverMcp(t)) continue;
    templateTypes.set(t.snake, t);
    templates.push({ mimeType: MIME, ...rt });
  }
  const exposed = catalog.types.filter((t) => t.mcp.length > 0);
  const schemaResources = exposed.map((t) => ({
    uri: `wo://schema/${t.snake}`,
    name: `${t.snake} schema`,
    title: `${t.name} fields`,
    description: `Fields of ${t.name}: names, types, which are required to create one.`,
    mimeType: MIME,
  }));
  // Rendered on first read, not at start: a 1,000-type app would render every document before it
  // serves (spec/architecture.md "Build and start-up cost").
  const exposedBySnake = new Map(exposed.map((t) => [t.snake, t]));
  const schemaTextCache = new Map<string, string>();
  const schemaText = (snake: string): string | undefined => {
    let text = schemaTextCache.get(snake);
    if (text === undefined) {
      const t = exposedBySnake.get(snake);
      if (t === undefined) return undefined;
      text = schemaDocument(t, toolsOf(t));
      schemaTextCache.set(snake, text);
    }
    return text;
  };

  const listChanged = deps.listChanged ?? false;
  // Rows can be subscribed to where they can be read (spec/live.md); a 2025 client needs a
  // session, whose GET stream carries the notifications.
  const capabilitiesFor = (subscribe: boolean) => ({
    tools: { listChanged },
    resources: { subscribe, listChanged },
    completions: {},
  });
  const events = eventResources(catalog, store);
  const subscribable = templates.length > 0 || events.listed.length > 0;
  const modernCapabilities = capabilitiesFor(subscribable);
  const legacyCapabilities = capabilitiesFor(subscribable && deps.sessions);
  const instructions = instructionsFor(catalog, exposed, toolsOf);

  // --- tools --------------------------------------------------------------------------

  const toolsList: Handler = (params, ctx) => {
    const shown = visibleTools(ctx.era === "modern" ? tools().modern : tools().legacy, ctx.principal);
    // A cursor minted for one caller's list is refused on a list of another length.
    const page = paginate(shown, "tools", `${fingerprint}.${shown.length}`, pageSize, params.cursor);
    return page.nextCursor ? { tools: page.items, nextCursor: page.nextCursor } : { tools: page.items };
  };

  const toolsCall: Handler = async (params, ctx) => {
    const name = params.name;
    if (typeof name !== "string") throw invalidParams("Invalid params: tools/call needs params.name (a string)");
    const tool = operationOf.get(name);
    const op = tool ? operations[name] : undefined;
    // A tool the caller is not shown answers exactly as one that does not exist.
    if (!tool || !op || !shownTo(name, ctx.principal ?? ownerPrincipal))
      throw invalidParams(`Unknown tool: ${name}`, { name });
    const args = params.arguments ?? {};
    if (!isPlainObject(args)) {
      return { content: [{ type: "text", text: "Invalid input: arguments must be an object" }], isError: true };
    }
    const canWrite = tool.annotations.readOnlyHint !== true;
    let value: unknown;
    try {
      value = await op(args, mcpCall(ctx, canWrite));
    } catch (err) {
      if (err instanceof OperationError) return { content: [{ type: "text", text: errorText(err) }], isError: true };
      if (canWrite && ctx.signal.aborted)
        return {
          content: [{ type: "text", text: "Cancelled: the call was cancelled before it committed; nothing changed" }],
          isError: true,
        };
      deps.log(`mcp: tools/call ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      return {
        content: [{ type: "text", text: `Internal error: ${name} failed unexpectedly; the server log has details` }],
        isError: true,
      };
    }
    // The value is serialized once: the text rendering is that JSON, and structuredContent is
    // the same JSON written into the answer directly (spec/mcp.md, "tools/call").
    const text = JSON.stringify(value) ?? "null";
    const wrapped = methodTools.has(name) || (ctx.era === "legacy" && !hasObjectOutput(tool));
    const structured = wrapped
      ? `,"structuredContent":{"result":${text}}`
      : value === undefined
        ? ""
        : `,"structuredContent":${text}`;
    return new SerializedResult(`"content":[{"type":"text","text":${JSON.stringify(text)}}]${structured}`);
  };

  // --- resources ----------------------------------------------------------------------

  const resourcesList: Handler = (params) => {
    const page = paginate([...schemaResources, ...events.listed], "resources", fingerprint, pageSize, params.cursor);
    return page.nextCursor ? { resources: page.items, nextCursor: page.nextCursor } : { resources: page.items };
  };

  const templatesList: Handler = (params) => {
    const page = paginate(templates, "templates", fingerprint, pageSize, params.cursor);
    return page.nextCursor
      ? { resourceTemplates: page.items, nextCursor: page.nextCursor }
      : { resourceTemplates: page.items };
  };

  const notFound = (era: Era, uri: string) =>
    // SEP-2164: 2026-07-28 answers -32602 with data.uri; the 2025 revisions define -32002.
    new RpcError(
      era === "modern" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound,
      `Resource not found: ${uri}`,
      { uri },
    );

  /**
   * The row as GET /api/…/:id returns it, through the type's get operation (it has one: `get` is
   * exposed). Never the store directly: that would read what the expose list keeps back.
   */
  const readRow = async (type: CatalogType, id: number, call: CallContext): Promise<unknown> => {
    const name = getOperation.get(type.name);
    const get = name !== undefined && Object.hasOwn(operations, name) ? operations[name] : undefined;
    if (!get) return undefined;
    try {
      return await get({ id }, call);
    } catch (err) {
      if (err instanceof OperationError && err.kind === "not_found") return undefined;
      throw err;
    }
  };

  /** The row a row URI names, read as resources/read reads it; throws the era's not-found. */
  const rowAt = async (
    method: string,
    uri: unknown,
    era: Era,
    call: CallContext = readCall(ownerPrincipal, "mcp"),
  ): Promise<{ uri: string; row: unknown }> => {
    if (typeof uri !== "string") throw invalidParams(`Invalid params: ${method} needs params.uri (a string)`);
    const m = /^wo:\/\/([a-z0-9_]+)\/([^/?#]+)$/.exec(uri);
    const type = m ? templateTypes.get(m[1]!) : undefined;
    const tail = m?.[2] ?? "";
    // Ids beyond 2^53 − 1 cannot exist (and the get operation's schema refuses them).
    if (!type || !/^[1-9][0-9]{0,15}$/.test(tail) || !Number.isSafeInteger(Number(tail))) throw notFound(era, uri);
    let row: unknown;
    try {
      row = await readRow(type, Number(tail), call);
    } catch (err) {
      // A read the caller's rate limit refused: said as the error, with the wait (nothing ran).
      if (err instanceof RateLimitedError)
        throw new RpcError(ErrorCode.ServerError, errorText(err), { retryAfterSeconds: err.retryAfterSeconds });
      deps.log(`mcp: ${method} ${uri} failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new RpcError(ErrorCode.InternalError, "Internal error while reading the resource");
    }
    if (row === undefined || row === null) throw notFound(era, uri);
    return { uri, row };
  };
  const tableToSnake = new Map([...templateTypes.values()].map((t) => [t.table, t.snake]));

  const admit: Admission = deps.admit ?? ((_kind, _call, body) => body());
  /** An event resource's text, read under the caller's read budget like a row's resources/read. */
  const eventsText = async (uri: string, ctx: MethodContext): Promise<string> => {
    try {
      return await admit("reads", mcpCall(ctx, false), () => events.read(uri, ctx.principal));
    } catch (err) {
      if (err instanceof RateLimitedError)
        throw new RpcError(ErrorCode.ServerError, errorText(err), { retryAfterSeconds: err.retryAfterSeconds });
      if (err instanceof OperationError) throw new RpcError(ErrorCode.ServerError, errorText(err));
      deps.log(`mcp: resources/read ${uri} failed: ${err instanceof Error ? err.message : String(err)}`);
      throw new RpcError(ErrorCode.InternalError, "Internal error while reading the resource");
    }
  };
  const resourcesRead: Handler = async (params, ctx) => {
    const uri = params.uri;
    if (typeof uri === "string" && uri.startsWith("wo://schema/")) {
      const text = schemaText(uri.slice("wo://schema/".length));
      if (text === undefined) throw notFound(ctx.era, uri);
      return { contents: [{ uri, mimeType: MIME, text }] };
    }
    if (typeof uri === "string" && events.has(uri))
      return { contents: [{ uri, mimeType: MIME, text: await eventsText(uri, ctx) }] };
    const { row } = await rowAt("resources/read", uri, ctx.era, mcpCall(ctx, false));
    // Same serialization as the REST body (JSON.stringify of the row), so the texts are equal.
    return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(row) }] };
  };

  // --- completion ---------------------------------------------------------------------

  const complete: Handler = async (params, ctx) => {
    const ref = params.ref as Record<string, unknown> | undefined;
    const arg = params.argument as Record<string, unknown> | undefined;
    if (!isPlainObject(ref) || !isPlainObject(arg) || typeof arg.name !== "string" || typeof arg.value !== "string") {
      throw invalidParams("Invalid params: completion/complete needs ref and argument { name, value }");
    }
    // Only template `id` arguments have suggestions; any other ref (wo has no prompts) gets
    // none, which the completion utility allows.
    const none = { completion: { values: [], total: 0, hasMore: false } };
    const m =
      ref.type === "ref/resource" && typeof ref.uri === "string" ? /^wo:\/\/([a-z0-9_]+)\/\{id\}$/.exec(ref.uri) : null;
    const type = m ? templateTypes.get(m[1]!) : undefined;
    if (!type || arg.name !== "id") return none;
    const prefix = arg.value;
    // Ids are positive integers: scan a bounded window in id order, keep those with the prefix.
    // Only ids of rows the caller may read (its read policy is part of the query).
    const filter = readFilter(type, ctx.principal, catalog);
    const rows = await store.read((tx) =>
      tx.list(type.table, { limit: completionWindow, ...(filter ? { filter } : {}) }),
    );
    const matches = rows.map((r) => String(r.id)).filter((id) => id.startsWith(prefix));
    return {
      completion: {
        values: matches.slice(0, maxCompletionValues),
        total: matches.length,
        hasMore: matches.length > maxCompletionValues || rows.length === completionWindow,
      },
    };
  };

  // --- lifecycle ----------------------------------------------------------------------

  const initialize: Handler = (params) => {
    const requested = params.protocolVersion;
    const version = (LEGACY_VERSIONS as readonly unknown[]).includes(requested)
      ? (requested as string)
      : LEGACY_VERSIONS[0];
    return { protocolVersion: version, capabilities: legacyCapabilities, serverInfo, instructions };
  };

  const discover: Handler = () => ({
    supportedVersions: [MODERN_VERSION],
    capabilities: modernCapabilities,
    instructions,
  });

  const shared: [string, Handler][] = [
    ["tools/list", toolsList],
    ["tools/call", toolsCall],
    ["resources/list", resourcesList],
    ["resources/templates/list", templatesList],
    ["resources/read", resourcesRead],
    ["completion/complete", complete],
  ];
  let shownListings: { tools: string; resources: string } | undefined;
  return {
    instructions,
    toolsVary,
    // Made once per table: a swap compares the serving build's listings with the next one's,
    // and the serving one's were made when it came in (a 400-type app's tools are megabytes).
    listings: () =>
      (shownListings ??= {
        // The policy lines too: a reload that changes only them changes what callers are shown.
        tools: jsonDigest([tools().modern, catalog.types.map((t) => t.policies ?? [])]),
        resources: jsonDigest([
          schemaResources,
          events.listed,
          templates,
          exposed.map((t) => [t.snake, schemaText(t.snake)]),
        ]),
      }),
    readableRow: async (uri, era, principal) =>
      typeof uri === "string" && events.has(uri)
        ? uri
        : (await rowAt("resources/subscribe", uri, era, readCall(principal ?? ownerPrincipal, "mcp"))).uri,
    mayRead: async (uri, principal) => {
      if (isOwner(principal)) return true;
      try {
        await rowAt("resources/subscribe", uri, "modern", readCall(principal!, "mcp"));
        return true;
      } catch {
        return false;
      }
    },
    events,
    rowUri: (table, id) => {
      const snake = tableToSnake.get(table);
      return snake === undefined ? undefined : `wo://${snake}/${id}`;
    },
    legacy: new Map([...shared, ["initialize", initialize], ["ping", () => ({})]]),
    modern: new Map([...shared, ["server/discover", discover]]),
  };
}
