// The app model: the resolved description of one app — types, fields, services, method
// signatures, configuration — produced by the checker (compiler/check/), read by every emitter
// (compiler/emit/) and, from the build folder, by the runtime. It depends on nothing in
// compiler/ or runtime/ (spec/architecture.md): method bodies are a type parameter, `Body`,
// which the compiler fills with its checked AST (compiler/catalog.ts) and the runtime leaves
// `unknown` because it only runs their compiled form.
//
// It is plain JSON-able data: no classes, no cycles, no Maps. Order is meaningful and stable:
// types in declaration order (file path order, then source order), fields in source order.

import { eventLogTable, type AuditRetention } from "./store.js";
import type { ScalarName } from "./scalars.js";
import type { FieldCheck } from "./field-check.js";
import type { BypassPolicy, PolicyGrant } from "./policy.js";

// The scalars and everything known about each are one table (scalars.ts).
export type { ScalarName };

/** A literal as written in source: a default value, a union variant written bare. */
export type LiteralValue = string | number | boolean | null;

export interface Catalog<Body = unknown> {
  /** From wo.toml `name`/`version`/`description`, else the app directory name and "0.0.0". */
  app: { name: string; version: string; description?: string };
  config: WoConfig;
  types: CatalogType<Body>[];
  /**
   * Top-level `fn`s whose bodies check cleanly: callable from methods and from each other, in
   * the caller's transaction. Absent when there are none.
   */
  functions?: CatalogMethod<Body>[];
  /** The first `main { … }` block when its body checks cleanly (as a fn named "main"): `wo exec` runs it. */
  main?: CatalogMethod<Body>;
  /**
   * Every `test "name" { … }` block in file order: `fn` (its body as a fn without parameters)
   * when `wo test` can run it, else `skipped`, the reason.
   */
  tests?: { name: string; source: SourceLocation; fn?: CatalogMethod<Body>; skipped?: string }[];
  /** Free fns named by `on startup do: f()` hooks, in source order: run once per start. */
  startup?: string[];
  /** Top-level `policy NAME` blocks (model/policy.ts). Absent when there are none. */
  bypassPolicies?: BypassPolicy[];
}

/** `wo.toml`, resolved. Every key is optional in the file; defaults are applied here. */
export interface WoConfig {
  /** `[server] listen` (or `[app] listen`), e.g. "127.0.0.1:8080". */
  listen?: string;
  /** `[database] data_dir`, relative to the app directory. Default ".wo/data". */
  dataDir: string;
  /** `[database] url`: a postgres:// URL selects PostgreSQL. */
  databaseUrl?: string;
  /** `[database] password_env`: the environment variable holding the PostgreSQL password (when the URL has none). */
  databasePasswordEnv?: string;
  /** `[database] pool_size`: PostgreSQL connections per instance. Default 10. */
  databasePoolSize?: number;
  /** `[database] statement_timeout_ms`: PostgreSQL cancels a statement running longer (503). Default 30000. */
  databaseStatementTimeoutMs?: number;
  /** `[database] max_bytes`: the size the database may grow to; past it writes get 503. Unlimited by default. */
  databaseMaxBytes?: number;
  mcp: {
    /** `[mcp] sessions = false` serves 2025-era clients without Mcp-Session-Id. Default true. */
    sessions: boolean;
    /** `[mcp] allowed_origins`: the older place for `allowedOrigins`; both lists apply to every route. */
    allowedOrigins: string[];
    /** `[mcp] max_sessions`: 2025-era sessions in use kept at most (rows of the shared table on PostgreSQL). Default 10,000. */
    maxSessions?: number;
  };
  /** `[server] allowed_origins`: browser origins admitted on every route besides the local ones (spec/security.md). */
  allowedOrigins: string[];
  /** `[server] max_body_bytes`. Default 1 MiB. */
  maxBodyBytes: number;
  /**
   * `[server] max_running` / `max_queued`: operations executing at once (default 64) and
   * waiting beyond those (default 1024); past both a call is refused as busy (REST 503).
   */
  concurrency: { running: number; queued: number };
  /**
   * `[live] retention`: changes the durable change log keeps for REST live streams to resume
   * from (spec/live.md). Default 10,000.
   */
  liveRetention?: number;
  /**
   * `[live] max_streams`, `max_streams_per_client`, `max_queued_bytes`, `stall_timeout_ms`: the
   * budget of long-lived streams (REST live streams, MCP GET and `subscriptions/listen` streams
   * together; spec/security.md, "Streams and sessions"). Absent keys keep the runtime's defaults.
   */
  streamLimits?: { maxStreams?: number; maxStreamsPerCaller?: number; maxQueuedBytes?: number; stallMs?: number };
  /**
   * `[audit] retention`: how much of the audit trail is kept (spec/operations.md, "Audit
   * trail"): a duration (`"30d"`) or a number of entries. Default 30 days.
   */
  auditRetention?: AuditRetention;
  /** `[server] token_env`: name of an environment variable holding a bearer token. */
  tokenEnv?: string;
  /** `[server] token = "auto"`: foreground `wo run` uses the automatic agent token too. */
  token?: "auto";
  /** `[auth]`: bearer JWTs from one OAuth 2.1 / OIDC issuer. Absent: no JWT is accepted. */
  auth?: AuthConfig;
  /** `[limits]`: the run budget of each kind of run (spec/security.md, "Budgets"). */
  limits: Record<RunKind, RunLimits>;
  /** `[jobs]`: how jobs run and are retried, and who may work them (spec/operations.md, "Jobs"). Absent: the defaults. */
  jobs?: JobSettings;
  /** `[admin] listen`: the admin listener's "host:port" (/metrics, /live, /ready). Absent: none. */
  adminListen?: string;
  /** `[telemetry]`: OpenTelemetry traces (spec/operations.md, "Traces"). Absent keys: the OTEL_* variables decide. */
  telemetry?: TelemetryConfig;
  /**
   * `[limits] reads_per_minute`, `writes_per_minute`, `calls_per_minute`: each caller's token
   * bucket per kind of operation (spec/operations.md, "Rate limits"). Absent kinds are unlimited;
   * absent altogether when none is set.
   */
  rateLimits?: RateLimits;
}

/** `[telemetry]` of wo.toml. */
export interface TelemetryConfig {
  /** `otlp_endpoint`: the OTLP/HTTP base URL (`http://127.0.0.1:4318`); spans go to `<it>/v1/traces`. */
  otlpEndpoint?: string;
  /** `sample_ratio`: the share of traces started here that are recorded, 0–1. Default 1. */
  sampleRatio?: number;
  /** `service_name`: the `service.name` of the spans. Default OTEL_SERVICE_NAME, else the app's name. */
  serviceName?: string;
}

/** The kinds of operation a caller's rate is counted in: reads, writes, method calls. */
export type RateKind = "reads" | "writes" | "calls";

/** Operations per minute per caller, by kind: the bucket's size and its refill over a minute. */
export type RateLimits = Partial<Record<RateKind, number>>;

/**
 * What language code runs as: a `method` call by a client (REST, MCP), one `test` of `wo
 * test`, or an `exec` run by the operator (`wo exec`'s `main`, the `on startup` hooks).
 */
export type RunKind = "method" | "test" | "exec";

/** `[limits] <kind>_steps` / `<kind>_millis`: how far one run may go before it is ended. */
export interface RunLimits {
  /** Fn and method calls plus loop iterations. */
  steps: number;
  /** Wall-clock time from the start of the run's transaction. */
  millis: number;
}

/**
 * The run budgets (spec/security.md, "Budgets"). A client's call: 10 million steps — about
 * 2–20 s of pure computation here, far beyond any request handler — and 5 s, the wall time a
 * caller of an HTTP API waits at most before giving up, which bounds what a runaway call holds
 * (its writer slot, a connection) whatever its steps cost. Tests and the operator's own runs
 * (`wo exec`, `on startup`) do bulk work on purpose, so they get ten times the steps and 60 s.
 */
export function defaultLimits(): Record<RunKind, RunLimits> {
  return {
    method: { steps: 10_000_000, millis: 5_000 },
    test: { steps: 100_000_000, millis: 60_000 },
    exec: { steps: 100_000_000, millis: 60_000 },
  };
}

/**
 * `[auth]`: the OAuth 2.1 / OIDC issuer whose bearer JWTs identify callers (spec/security.md,
 * "OAuth 2.1 bearer tokens (JWT)"). URLs are kept as written: `iss` is compared exactly.
 */
export interface AuthConfig {
  /** `issuer`: https://, or http:// on a loopback host only. */
  issuer: string;
  /** `audience` (a string or a list): undefined means the server's own `/mcp` URL. */
  audience?: string[];
  /** `jwks_url`: undefined means discovered from the issuer's metadata. */
  jwksUrl?: string;
  /** `user_claim`: the top-level claim that is `$session.user`. Default "sub". */
  userClaim: string;
  /** `role_claim`: the top-level claim that is `$session.role` (a string, or an array's first). Default "role". */
  roleClaim: string;
  /** `scopes_supported`: advertised in the resource metadata and the 401 challenge's `scope`. */
  scopesSupported?: string[];
}

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

export interface CatalogType<Body = unknown> {
  /** As declared: `BlogPost`. */
  name: string;
  /** snakeCase(name): `blog_post`. Tool names, resource URIs and the default table use it. */
  snake: string;
  keyword: "type" | "class";
  /**
   * For `type L link A -> B`: the endpoint types and the two `ref` fields that store them
   * (`fromField`/`toField`, also in `fields`, right after `id`; naming: linkEndpointFields).
   */
  link?: { from: string; to: string; fromField: string; toField: string };
  /**
   * Set on the implicit link type of an edge-labelled relation (`related: multi Article
   * @edge(:RELATED_TO)` on Article → type `Article$related`, compiler/check/edges.ts).
   */
  edge?: { owner: string; field: string; label: string };
  /** `--` comment lines directly above the declaration. */
  doc?: string;
  /** Storage table name: `@table(name: "...")`, else `snake`. */
  table: string;
  /** `@renamed_from("Old")`: the type's name before, so a migration renames its table and keeps its rows. */
  renamedFrom?: string;
  /**
   * Every field in source order. The first entry is always `id` (integer, minted by the
   * store): the declared `id: Id` field when there is one, else a synthetic one.
   */
  fields: CatalogField[];
  /** `@table(index: [...])`, one composite index each, columns are top-level stored fields. */
  indexes: { name: string; columns: string[] }[];
  services: CatalogService[];
  methods: CatalogMethod<Body>[];
  /** REST routes come only from `service rest` blocks: one entry per block. */
  rest: { path: string; ops: ExposedOp[] }[];
  /**
   * What MCP exposes: the union of `service mcp` expose lists when the type has one, else of
   * its `service rest` lists; `subscribe` and `me` dropped; first-mention order.
   */
  mcp: ExposedOp[];
  /**
   * The type's `policy` lines (model/policy.ts). Absent or empty: today's rule, every caller that
   * may call at all may do everything; otherwise every action no line grants is denied.
   */
  policies?: PolicyGrant[];
  /**
   * The type's triggers that run (spec/language.md, "Triggers"), in source order; absent when
   * it has none. Compiled into operations.js; app.json keeps them without their bodies.
   */
  triggers?: CatalogTrigger<Body>[];
  /**
   * The boolean `@check`s and evaluated computed fields (spec/language.md, "Checks", "Computed
   * fields"), in field order; absent when none. Compiled into operations.js; app.json keeps them
   * without their bodies.
   */
  rowExprs?: CatalogRowExpr<Body>[];
  source: SourceLocation;
}

/**
 * A row expression, checked: `body` is what the method checker types as a body of the type
 * (compiler/check/row-exprs.ts: a `let` per field the text names, then `return <expr>`).
 */
export interface CatalogRowExpr<Body = unknown> {
  kind: "check" | "computed";
  field: string;
  /** The expression as written. */
  text: string;
  /** Computed only: the tables whose writes change the value (backlinked rows), for `@materialized`. */
  dependsOn?: { table: string; column: string }[];
  body: Body;
  source: SourceLocation;
}

/**
 * `on create|update|delete [when …] do …`, checked. `body` is what the method checker types
 * (compiler: `let new = self`, `let old = self` as the event has them, then
 * `if <when> { <sets>; <actions> }`), of whose `if` block the first `sets` statements are
 * the `set`s (`update self set f = e`).
 */
export interface CatalogTrigger<Body = unknown> {
  event: "create" | "update" | "delete";
  /** `Post on update (posts.wo:17)`. */
  name: string;
  sets: number;
  /**
   * Its `emit` actions, in order (spec/language.md, "Triggers"): each event's name and how many
   * arguments it takes. Their values are the last `let`s of the `if` block, in the same order
   * (compiler/check/triggers.ts). Absent when it emits nothing.
   */
  emits?: { name: string; args: number }[];
  /**
   * Its `enqueue` actions, in order (spec/operations.md, "Jobs"): each job's name and its
   * fields as written. Their values are the `let`s after the emits' (compiler/check/triggers.ts).
   * Absent when it enqueues nothing.
   */
  enqueues?: { name: string; fields: string[] }[];
  body: Body;
  source: SourceLocation;
}

/**
 * The route of the app-wide event stream (spec/rest.md, "Application events"): `_` keeps it
 * apart from any type's path, and the checker reserves it (compiler/check/services.ts).
 */
export const eventsRoute = "/api/_events";

/** The worker API of jobs (spec/rest.md, "Jobs"), served where some trigger enqueues one. */
export const jobsRoute = "/api/_jobs";

/** The job names the program's triggers enqueue, sorted; empty when none does. */
export function enqueuedJobs(catalog: Pick<Catalog, "types">): string[] {
  const names = new Set<string>();
  for (const t of catalog.types)
    for (const tr of t.triggers ?? []) for (const j of tr.enqueues ?? []) names.add(j.name);
  return [...names].sort();
}

/** The event names the program's triggers emit, sorted; empty when none does. */
export function emittedEvents(catalog: Pick<Catalog, "types">): string[] {
  const names = new Set<string>();
  for (const t of catalog.types) for (const tr of t.triggers ?? []) for (const e of tr.emits ?? []) names.add(e.name);
  return [...names].sort();
}

/** `[jobs]` in wo.toml (spec/operations.md, "Jobs"). */
export interface JobSettings {
  /** Runs a job gets before it is `failed`. */
  maxAttempts: number;
  /** The backoff after the first failed run; it doubles with each further one. */
  retryBaseMs: number;
  /** The longest backoff. */
  retryMaxMs: number;
  /** How long a claim holds a job: past it, another instance or worker may run it again. */
  leaseSeconds: number;
  /** How often an idle runner looks for due jobs (a commit that enqueues wakes it at once). */
  pollMs: number;
  /** The roles whose principals may work jobs over REST and MCP, besides the owner. */
  workerRoles: string[];
}

export function defaultJobSettings(): JobSettings {
  return { maxAttempts: 5, retryBaseMs: 1000, retryMaxMs: 300_000, leaseSeconds: 300, pollMs: 1000, workerRoles: [] };
}

/** A CRUD op or the name of a method of the type. `subscribe`/`me` appear only in `rest`. */
export type ExposedOp = string;

/**
 * Rows of a type are MCP resources (template `wo://<snake>/{id}`, resources/read, id
 * completion) only when its MCP exposure includes `get`: a type exposed over MCP only to write
 * must not be readable there either (spec/security.md, "What MCP reveals").
 */
export function readsRowsOverMcp(type: Pick<CatalogType, "mcp">): boolean {
  return type.mcp.includes("get");
}

/**
 * Whether a create or `insert` that leaves field `f` out still has a value for it, as the
 * language defines (spec/language.md, "Field flags"): its default (literal or `now`), null when
 * optional, `[]` for a list, and for a struct the struct of its fields' values when every one
 * of them has one. Such a field is not required on create.
 */
export function isFilledWhenOmitted(f: Pick<CatalogField, "default" | "isOptional" | "type">): boolean {
  if (f.default?.kind === "literal" || f.default?.kind === "now" || f.isOptional) return true;
  if (f.type.kind === "array") return true;
  return f.type.kind === "struct" && f.type.fields.every(isFilledWhenOmitted);
}

/**
 * A type whose `service rest` exposes `subscribe` serves `GET P/live`, and the store keeps a
 * durable change log of its table for those streams to resume from (spec/live.md).
 */
export function servesLiveStream(type: Pick<CatalogType<unknown>, "rest">): boolean {
  return type.rest.some((block) => block.ops.includes("subscribe"));
}

/**
 * The tables the change log keeps (spec/live.md): those of types serving a live stream, and the
 * application events when some trigger emits one (model/store.ts `eventLogTable`).
 */
export function loggedTables(catalog: Pick<Catalog, "types">): string[] {
  const tables = catalog.types.filter(servesLiveStream).map((t) => t.table);
  return emittedEvents(catalog).length > 0 ? [...tables, eventLogTable] : tables;
}

export const crudOps = ["list", "get", "create", "update", "delete"] as const;
export type CrudOp = (typeof crudOps)[number];

/**
 * Expose entries that are not CRUD ops but still mean something (REST only): routes the
 * runtime answers itself (`subscribe` the live stream), never operations (spec/rest.md).
 */
export const restOnlyOps = ["subscribe"] as const;
export type RestOnlyOp = (typeof restOnlyOps)[number];

export function isRestOnlyOp(op: string): op is RestOnlyOp {
  return (restOnlyOps as readonly string[]).includes(op);
}

export interface CatalogField {
  name: string;
  type: FieldType;
  /** `T?`: the value may be null or absent. */
  isOptional: boolean;
  /** `@unique`: enforced by the store (409 on violation). */
  isUnique: boolean;
  default?: FieldDefault;
  /** Has a column in the row: false for `multi`, `backlink` and computed fields. */
  isStored: boolean;
  /** Stored, not computed, not `id`: methods may set it; create/update inputs accept it unless flagged below. */
  isWritable: boolean;
  /** `@readonly` (top-level only): in no create or update input; only its default and methods set it. */
  isReadonly?: boolean;
  /** `@immutable` (top-level only): in the create input, never in update input, never set by a method's `update`. */
  isImmutable?: boolean;
  /** `@renamed_from("old")` (top-level stored fields): the field's name before, so a migration renames its column and keeps its values. */
  renamedFrom?: string;
  /** `@check(> 0)` (scalar fields, also inside structs and list items): enforced on every write (model/field-check.ts). */
  check?: FieldCheck;
  /** `@search` (top-level stored text fields): in the type's full-text index (searchedFields). */
  isSearched?: true;
  /** `@check(<boolean expression>)`, as written: enforced on every write (the type's `rowExprs`). */
  checkExpr?: string;
  /** In the create input's `required` list (rule: spec/language.md, "Create required"). */
  isRequiredOnCreate: boolean;
  /** True only for the `id` field that the checker adds when the source declares none. */
  isSynthetic?: boolean;
  doc?: string;
  source: SourceLocation;
}

/**
 * The fields of a type's full-text index, in declaration order (spec/language.md, "Full-text
 * search"); empty when no field is marked `@search`, and then its lists take no `query`.
 */
export function searchedFields(type: Pick<CatalogType<unknown>, "fields">): string[] {
  return type.fields.filter((f) => f.isSearched).map((f) => f.name);
}

/** Accepted by the create operation's input (and a method's `insert`, which also takes `@readonly`). */
export function inCreateInput(f: CatalogField): boolean {
  return f.isWritable && !f.isReadonly;
}

/** Accepted by the update operation's input. */
export function inUpdateInput(f: CatalogField): boolean {
  return f.isWritable && !f.isReadonly && !f.isImmutable;
}

export type FieldType =
  /** `schemes`: a Url field's `@schemes(…)`, lower case; absent: defaultUrlSchemes (model/scalars.ts). */
  | { kind: "scalar"; scalar: ScalarName; schemes?: string[] }
  | { kind: "union"; variants: string[] }
  | { kind: "ref"; target: string }
  | { kind: "multi"; target: string; edgeLabel?: string; via?: string }
  | { kind: "backlink"; target: string; field: string }
  | { kind: "array"; element: FieldType }
  | { kind: "struct"; fields: CatalogField[] }
  /** A declared type used by value (not `ref`): an embedded copy of its stored fields. */
  | { kind: "embedded"; type: string };

export type FieldDefault =
  /** A literal, or a union variant written bare (`= Draft` → "Draft"). */
  | { kind: "literal"; value: LiteralValue }
  /** `now` / `now()`: ISO-8601 UTC with milliseconds at creation. */
  | { kind: "now" }
  /**
   * Any other expression: a computed field, never writable (spec/language.md, "Computed
   * fields"). `isEvaluated`: the expression type-checked and is compiled into operations.js
   * (the type's `rowExprs`), so every read path holds it; otherwise it is kept as text only and
   * the field stays absent from rows. `isMaterialized`: `@materialized`, stored in a column and
   * maintained in the write transaction (then the field `isStored`, so it filters and sorts).
   */
  | { kind: "computed"; text: string; isEvaluated?: true; isMaterialized?: true };

/** A computed field whose value rows hold: evaluated on read, or materialized in its column. */
export function isEvaluatedComputed(f: CatalogField): boolean {
  return f.default?.kind === "computed" && f.default.isEvaluated === true;
}

/** A field a row read holds: a stored one, or a computed one that is evaluated. */
export function isInRow(f: CatalogField): boolean {
  return f.isStored || isEvaluatedComputed(f);
}

export interface CatalogService {
  kind: "rest" | "mcp" | "graphql" | "native";
  path: string;
  expose: string[];
  source: SourceLocation;
}

export interface CatalogMethod<Body = unknown> {
  name: string;
  /** `doc`: the `--` lines above a parameter written on its own line. */
  params: { name: string; type: FieldType; doc?: string; source: SourceLocation }[];
  /** Undefined when the signature has no `-> T`. */
  returns?: { type: FieldType; isArray: boolean };
  /**
   * Set by the body checker when a `return` gives projected rows (`select T{ p, a, b }`) for a
   * declared `T`/`[T]`: the keys a returned row may hold (`fields`, in T's field order) and the
   * keys every returned row holds (`required`: fewer than `fields` only when returns project
   * differently or some return whole rows). The output schema describes exactly these.
   */
  returnsProjection?: { fields: string[]; required: string[] };
  /** A `test` block's body: `expect_abort` is allowed, and a failed `assert` reports its values. */
  isTest?: true;
  /** `in txn [snapshot|serializable]`, as written: recorded only; every call is one transaction either way. */
  txn?: "default" | "snapshot" | "serializable";
  doc?: string;
  /** The checked body. The method emitter compiles it to TypeScript. */
  body: Body;
  source: SourceLocation;
}
