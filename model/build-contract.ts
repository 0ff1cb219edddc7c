// The build contract: what `wo build` writes into the build folder (<app>/.wo/build by
// default) and what the runtime loads from it. The compiler's emitters produce exactly this;
// the runtime reads app.json, operation-faces.json, validators.js and operations.js, and never
// imports from compiler/.
//
//   app.json          AppJson below: the model without method bodies, the operations
//                     table without its faces, routes and resource templates
//   operation-faces.json
//                     OperationFaces below: each operation's description and schemas, read
//                     whole at load and parsed when first shown (the runtime reads no other JSON)
//   manifest.json     { tools, resourceTemplates, routes } (spec/schemas.md), for clients
//   schemas.json      BuildSchemas below, for clients
//   openapi.json      OpenAPI 3.1 for /api
//   types.d.ts        row and input types for clients
//   validators.ts/.js ajv standalone validators, one per input schema (see ValidatorsModule)
//   operations.ts/.js generated operation handlers (see OperationsModule)
//   build-info.json   BuildInfo below: the up-to-date check
//   package.json      { "type": "module" }: the .js files are ES modules on every Node (20 too)
//
// Generated JavaScript imports no package by name (a user's app folder has no node_modules):
// what it needs is handed in by the runtime — `require` for ajv's runtime helpers and the
// OperationRuntime for everything else.

import type { Catalog, RunKind } from "./app.js";
import type { AuditRecord, ChangeOp, ListQuery, Row, Store, StoreTx } from "./store.js";
import type { Principal, Surface } from "./principal.js";
import type { ErrorDetail } from "./errors.js";
import type { RowCondition } from "./policy.js";

/**
 * The version of the contract between generated code and this runtime (the OperationRuntime
 * calls operations.js makes, the files' layout). Bumped whenever it changes, so a build made
 * by an earlier wo is rebuilt (`wo run`) or refused with a clear message (loadBuild) instead
 * of running against functions whose meaning moved. 2: checkRefs(tx, table, values).
 * 3: listPage(table, input) serves `_list`. 4: app.json replaces catalog.json; CRUD and
 * relation operations are run by the runtime from its operations table, not generated; method
 * handlers get validated input; bodies take their helpers from `rt.helpers`. 5: every body runs
 * under `rt.budgeted`, whose budget it passes to the fns it calls and counts its steps in
 * (loops, `nested`); text joins via `concat`. 6: package.json
 * marks the .js files as ES modules (Node 20 before 20.19 loaded them as CommonJS). 7: triggers,
 * registered with `rt.defineTriggers` (a build without them would skip the program's triggers).
 * 8: `do enqueue` calls `rt.enqueueJob`, and `(job) name` members run the jobs.
 * 9: boolean `@check`s and computed fields, registered with `rt.defineRowExprs`.
 * 10: `subscribe live` and `receive` call `rt.subscribe` and `rt.receive`.
 * 11: `@check(op value)` on fields inside structs and list items (a runtime before would not enforce them).
 * 12: the operations' descriptions and schemas move from app.json to operation-faces.json, and
 * each entry lists its `inputNames`.
 */
export const buildFormat = 12;

/** build-info.json. */
export interface BuildInfo {
  woVersion: string;
  buildFormat: number;
  /** sha256 over wo's version, wo.toml and every `.wo` file (compiler/build-info.ts). */
  inputHash: string;
  /**
   * The check's warnings, so a start that finds the build fresh shows them without checking
   * again; spans name files relative to the app folder.
   */
  warnings: RecordedWarning[];
}

export interface RecordedWarning {
  code: string;
  message: string;
  span: { file: string; offset: number; end: number; line: number; col: number };
}

export interface BuildSchemas {
  /** Row (output) schema per type, keyed by snake name. */
  rows: Record<string, object>;
  /** Input schema per operation, keyed by tool name (`article_create`, `product_set_price`). */
  inputs: Record<string, object>;
  /** Output schema per operation, keyed by tool name. */
  outputs: Record<string, object>;
}

export interface ManifestTool {
  name: string;
  title: string;
  description: string;
  inputSchema: object;
  outputSchema: object;
  annotations: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/**
 * What an operation does, which decides how the runtime serves it: the CRUD kinds and the
 * relation kinds are run by the runtime from the table (runtime/operations/table-operations.ts);
 * `method` runs the generated handler of operations.js.
 */
export type OperationKind =
  | "list"
  | "get"
  | "create"
  | "update"
  | "delete"
  | "me"
  | "method"
  | "relation"
  | "link"
  | "unlink";

/** One REST route: `base` is the `service rest` path it hangs off (a created row's Location). */
export interface OperationRoute {
  method: string;
  path: string;
  base: string;
}

/**
 * What an operation shows whoever asks what it is — MCP's tools/list, the explorer, the
 * manifest — and what serving a call never reads: it is nine tenths of the operations table's
 * text, so the build keeps it in operation-faces.json, apart from app.json, and the runtime
 * parses it on first use (runtime/load-build.ts).
 */
export interface OperationFace {
  description: string;
  inputSchema: object;
  /** As the MCP tool shows it: a method's value is wrapped as `{ result }`. */
  outputSchema: object;
}

/** The fields of an OperationFace. */
export const operationFaceFields = [
  "description",
  "inputSchema",
  "outputSchema",
] as const satisfies readonly (keyof OperationFace)[];

/**
 * One operation of the app: the row of the operations table REST, MCP, the explorer and the
 * OpenAPI document all read. `name` is the tool name, computed once by the compiler
 * (model/naming.ts) and never derived again.
 */
export interface OperationEntry extends OperationFace {
  /** `blog_post_create`: the MCP tool, the validator and the handler all go by it. */
  name: string;
  /** The declared type it belongs to (`BlogPost`). */
  type: string;
  kind: OperationKind;
  /** The expose entry or relation op it serves: `create`, `publish`, `tags_add`. */
  op: string;
  /** Listed as an MCP tool (the type's MCP exposure brings it). */
  mcp: boolean;
  /** REST routes that run it, in declaration order (none when only MCP exposes it). */
  routes: OperationRoute[];
  title: string;
  /**
   * The top-level properties inputSchema accepts, in its order: what a call's input is checked
   * against for unknown fields (runtime/operations/input-checks.ts) without the schema.
   */
  inputNames: string[];
  annotations: ManifestTool["annotations"];
  /** relation, link, unlink: the relation field (`tags`) and, for link/unlink, the path parameter naming the target row. */
  relation?: { field: string; targetParam?: string };
}

/** The MCP tool of an operation (`mcp: true`): what tools/list and manifest.json show. */
export function manifestTool(entry: OperationEntry): ManifestTool {
  const { name, title, description, inputSchema, outputSchema, annotations } = entry;
  return { name, title, description, inputSchema, outputSchema, annotations };
}

/** A REST route the runtime answers itself, not through an operation: `subscribe` (`GET P/live`, the live stream). */
export interface RuntimeRoute extends OperationRoute {
  /** The expose entry: `subscribe`. */
  op: string;
  type: string;
}

/** An entry as app.json holds it: its face is in operation-faces.json. */
export type StoredOperationEntry = Omit<OperationEntry, keyof OperationFace>;

/** operation-faces.json: each operation's face, by its name. */
export type OperationFaces = Record<string, OperationFace>;

/** app.json as written: the contract with each operation's face left out (OperationFaces holds them). */
export interface AppJson extends Omit<AppContract, "operations"> {
  operations: StoredOperationEntry[];
}

/**
 * The build's app as the runtime holds it (app.json with operation-faces.json): everything the
 * runtime needs besides the compiled code. The model is the
 * checker's catalog with every method body left out (`body` is absent: bodies are compiled
 * into operations.js and nothing at run time reads their AST); free fns are left out for the
 * same reason, `main` keeps its signature, and `tests` what `wo test` prints.
 */
export interface AppContract extends Omit<Catalog<undefined>, "functions"> {
  /** Sorted by name. */
  operations: OperationEntry[];
  /** `subscribe` routes, in declaration order (type, `service rest` block, expose entry). */
  runtimeRoutes: RuntimeRoute[];
  resourceTemplates: Manifest["resourceTemplates"];
}

export interface Manifest {
  tools: ManifestTool[];
  resourceTemplates: { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }[];
  routes: { method: string; path: string; op: string }[];
}

/** A compiled ajv validator (standalone code): returns true or sets `.errors`. */
export interface Validator {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }[] | null;
}

/** validators.js: `export function createValidators(require): Record<toolName, Validator>`. */
export interface ValidatorsModule {
  createValidators(require: NodeJS.Require): Record<string, Validator>;
}

/** What generated handlers may call. Implemented once in runtime/operations/. */
export interface OperationRuntime {
  store: Store;
  validators: Record<string, Validator>;
  /** Validate `input` with the named validator; throws OperationError("invalid_input"). */
  validate<T = Row>(toolName: string, input: unknown): T;
  /** Current time as ISO-8601 UTC with milliseconds (`now()` defaults). */
  now(): string;
  /**
   * Throws OperationError("unprocessable") naming each ref in `values` (a row or patch of
   * `table`) whose row does not exist: top-level refs and refs inside arrays, structs and
   * embedded types alike. `pointers` ([field, JSON pointer into the caller's input]) replaces
   * `/field` in what is reported: a method that stored its argument `person` in `assignee`
   * reports `/person`, the value the caller sent.
   */
  checkRefs(
    tx: StoreTx,
    table: string,
    values: Row,
    pointers?: readonly (readonly [field: string, pointer: string])[],
  ): Promise<void>;
  /** Throws OperationError("conflict") naming the tables/fields that still reference the row. */
  checkNotReferenced(tx: StoreTx, table: string, id: number): Promise<void>;
  /**
   * Adds the link row `row` of link table `table` whose endpoint columns hold `ends`, unless
   * that pair is linked already (then that link, created: false). runtime/operations/links.ts.
   */
  link(
    tx: StoreTx,
    table: string,
    ends: Readonly<Record<string, number>>,
    row: Row,
  ): Promise<{ created: boolean; link: Row }>;
  /** Removes the link of that pair; false when there was none. runtime/operations/links.ts. */
  unlink(tx: StoreTx, table: string, ends: Readonly<Record<string, number>>): Promise<boolean>;
  /**
   * One page of a `_list` whose input has passed its schema: filters, `sort`, `cursor`,
   * `limit` and `count` (runtime/operations/list-page.ts); `filter`: the caller's read policy
   * (runtime/operations/read-policy.ts), so pages, cursors and the count cover readable rows only.
   */
  listPage(
    table: string,
    input: Row,
    filter?: RowCondition,
  ): Promise<{ items: Row[]; nextCursor?: string; total?: number }>;
  notFound(typeName: string, id: unknown): never;
  invalid(message: string, details?: ErrorDetail[]): never;
  abort(message: string): never;
  /**
   * `value` (the result of Int/Money `+`, `-` or `*` at `at`, `file.wo:LINE`) when it is a safe
   * integer; otherwise throws OperationError("aborted"). runtime/operations/int-arithmetic.ts.
   */
  checkedInt(value: number, at: string): number;
  /** `value` (the result of Float `+`, `-` or `*`) when it is finite; otherwise as checkedInt. */
  checkedFloat(value: number, at: string): number;
  /** What compiled bodies call for wo's own semantics (runtime/operations/body-helpers.ts). */
  helpers: BodyHelpers;
  /**
   * `body` as the store callback of one run under the `[limits]` budget of `kind`
   * (runtime/operations/run-budget.ts): past its steps or its time, or once `call.signal`
   * aborts, the run ends (409 "… exceeded its run budget …" / cancelled) and its transaction
   * rolls back. `what` names the run in that message: `Method Account.transfer`, `main`.
   */
  budgeted<T>(
    kind: RunKind,
    what: string,
    call: CallContext,
    body: (tx: StoreTx, budget: RunBudgetCounter) => Promise<T>,
  ): (tx: StoreTx) => Promise<T>;
  /**
   * `$session.user` and `$session.role` of the call whose body is running (null for the
   * owner, anonymous callers and `wo test`/`wo exec`): runtime/operations/session.ts.
   */
  session(): { user: string | null; role: string | null };
  /**
   * `$session.user` as an id (what it is wherever the checker typed it `Id?`): null when the
   * call has none; a user that is not a decimal id ends the call (409) naming `at`.
   */
  sessionUser(at: string): number | null;
  /**
   * `as session { user, role } { … }` in tests: runs `body` with a token principal named
   * "session" holding that user and role as the caller (runtime/operations/session.ts). A
   * numeric user is its decimal text.
   */
  asSession<T>(
    who: { user: string | number | null; role: string | null; anonymous?: boolean },
    body: () => Promise<T>,
  ): Promise<T>;
  /**
   * `subscribe live T{ p }` in a body (spec/language.md, "Live subscriptions"): a subscription
   * to the rows of `table` passing `where` (and the read policy of the `as session` block
   * running, if any), fed by the writes `tx`'s run makes from now on
   * (runtime/operations/live-writes.ts). `at` is `file.wo:LINE`.
   */
  subscribe(tx: StoreTx, table: string, where: NonNullable<ListQuery["where"]>, at: string): unknown;
  /**
   * `receive(sub)`: the subscription's next delta, in write order; with none pending the call
   * ends (409) naming `at` and the subscription's line. Never waits.
   */
  receive(sub: unknown, at: string): { kind: "Snapshot" | "Insert" | "Update" | "Delete"; row: Row; rows: Row[] };
  /**
   * Registers the program's triggers (spec/language.md, "Triggers"): operations.js calls it
   * once, from createOperations. From then on every insert, update and delete of a write
   * transaction of `store` runs the triggers of its table (runtime/operations/triggers.ts).
   */
  defineTriggers(triggers: readonly TriggerDefinition[]): void;
  /**
   * The program's boolean `@check`s and computed fields (spec/language.md, "Checks", "Computed
   * fields"), once, from createOperations: from then on every write of `store` holds its rows
   * to the checks and keeps `@materialized` columns, and every read gives the computed fields
   * (runtime/operations/row-exprs.ts).
   */
  defineRowExprs(exprs: readonly RowExprDefinition[]): void;
  /**
   * Whether a write of `table` runs triggers. A CRUD write of such a table is not run
   * `concurrent`ly (model/store.ts WriteOptions): its triggers may read and write other rows.
   */
  hasTriggers(table: string): boolean;
  /**
   * `do emit "name"(args)` of a trigger on the row `row` of `type` (spec/live.md, "Application
   * events"): recorded in `tx`, the write's transaction, and published after its commit.
   */
  emitEvent(
    tx: StoreTx,
    event: { name: string; type: string; table: string; row: Row; args: readonly unknown[] },
  ): Promise<void>;
  /**
   * `do enqueue "name" with { … }` of a trigger on the row `row` of `type` (spec/operations.md,
   * "Jobs"): a row of the job outbox written in `tx`, run after its commit.
   */
  enqueueJob(tx: StoreTx, job: { name: string; type: string; row: Row; args: Record<string, unknown> }): Promise<void>;
}

/**
 * One compiled trigger. `old` is the row before the write (null on create), `row` the row as it
 * will be stored (before: with the caller's values, `id` null on create) or as it was stored
 * (actions). Both functions run in the write's transaction, under the budget of a method call.
 */
export interface TriggerDefinition {
  /** The type's table. */
  table: string;
  event: ChangeOp;
  /** How messages name it: `Post on update (posts.wo:17)`. */
  name: string;
  /**
   * Its `when` and `set`s, before the row is stored: undefined when `when` is false (the trigger
   * does not fire), else the fields its `set`s give (`{}` when it has none).
   */
  before(tx: StoreTx, budget: RunBudgetCounter, old: Row | null, row: Row): Promise<Row | undefined>;
  /** Its other actions (calls and writes), once the row is stored (on delete: before it is removed). */
  actions?(tx: StoreTx, budget: RunBudgetCounter, old: Row | null, row: Row): Promise<void>;
}

/**
 * A compiled row expression (compiler/emit/row-exprs.ts): `value` evaluates it on `row` (every
 * stored field, and the computed fields declared before it) in `tx`. A check's value is false
 * when the row breaks it.
 */
export interface RowExprDefinition {
  table: string;
  field: string;
  kind: "check" | "computed";
  /** The expression as written, for messages. */
  text: string;
  /** Computed: kept in its column, maintained on writes. */
  isMaterialized?: true;
  /** Materialized: the backlinked tables (and their ref column to this row) whose writes change it. */
  dependsOn?: { table: string; column: string }[];
  value(tx: StoreTx, row: Row): Promise<unknown>;
}

/**
 * The functions compiled method, fn and test bodies use (`const { truthy, deref } = rt.helpers`).
 * `at` is `file.wo:LINE`, named in the message of a call that ends (409, or 400 for `variant`).
 */
export interface BodyHelpers {
  /** The row a `ref` id names, read in `tx`; null for null; an id naming no row ends the call. */
  deref<T>(tx: StoreTx, table: string, id: number | null, type: string, what: string, at: string): Promise<T | null>;
  /** Int and Money division, truncated toward zero; by zero ends the call. */
  intDiv(a: number, b: number, at: string): number;
  intMod(a: number, b: number, at: string): number;
  floatDiv(a: number, b: number, at: string): number;
  /** wo truthiness: only false and null (and absent) are false. */
  truthy(v: unknown): boolean;
  /** The last of a set in id order; an empty set ends the call. */
  latest<T>(set: readonly T[], at: string): T;
  /** `v` when it has a value; null ends the call (`what` names the expression). */
  present<T>(v: T | null | undefined, what: string, at: string): T;
  /** `==` on lists, structs and rows: structural. */
  sameJson(a: unknown, b: unknown): boolean;
  /** A value as text: strings as they are, anything else as JSON. */
  text(v: unknown): string;
  /** `contains(set, x)`, comparing like `==`. */
  contains(set: readonly unknown[], v: unknown): boolean;
  /** `f` on each element of `list` in turn (null: none), for `.*` in an aggregate: `sum(lines.*.qty)`. */
  each<T, R>(list: readonly T[] | null, f: (item: T) => Promise<R>): Promise<R[]>;
  /** `words(text)`: how many whitespace-separated words; null has none. */
  words(text: string | null): number;
  /** `list[i]`; an index outside the list ends the call. */
  item<T>(list: readonly T[], i: number, at: string): T;
  /** A text stored in a union field: one of `variants`, else the call is refused (400). */
  variant<T extends string>(v: string, variants: readonly T[], field: string, at: string): T;
  /**
   * Runs a nested fn or method call, one step of the run's budget; past the depth limit the
   * call ends instead of recursing forever.
   */
  nested<T>(budget: RunBudgetCounter, at: string, run: () => Promise<T>): Promise<T>;
  /** Text `+`: both sides as `text` does; a result beyond the text length limit ends the call. */
  concat(a: unknown, b: unknown, at: string): string;
  /**
   * The message of an error an `expect_abort` block caught; rethrows an exceeded run budget or
   * a cancellation, which no test can expect away.
   */
  abortMessage(err: unknown): string;
  /**
   * `set a.b.c = v`: a copy of struct `value` (field `what`'s) with the field at `path` set to
   * `v`, the rest kept; a null struct on the way ends the call.
   */
  withField(value: unknown, path: readonly string[], v: unknown, what: string, at: string): unknown;
}

/**
 * What compiled bodies see of a run budget (runtime/operations/run-budget.ts `RunBudget`): the
 * handler gets it with its transaction and passes it, like `tx`, to every fn and method it
 * calls. A loop counts each iteration as `if (--budget.left <= 0) await budget.check();`.
 */
export interface RunBudgetCounter {
  /** Steps left until the next `check`: each step counts it down. */
  left: number;
  /** How deep fn and method calls nest right now (`nested`). */
  depth: number;
  /** Ends the run past its budget or once its caller gave up; lets other callers run when due. */
  check(): Promise<void>;
}

export interface CallContext {
  /** Aborted when the caller cancels (MCP notifications/cancelled) or disconnects. */
  signal?: AbortSignal;
  /** Who is calling (model/principal.ts); absent means the owner. */
  principal?: Principal;
  /** Where the call came from; absent means an in-process caller (tests of the runtime). */
  surface?: Surface;
  /**
   * Whom per-caller budgets count an anonymous call against: the connection's address
   * (runtime/stream-budget.ts, streamCallerOf). Set by the surfaces for anonymous callers only:
   * a named token's or JWT's principal is counted by its name, from `principal`.
   */
  caller?: string;
  /**
   * The audit record of a call that may write, attached by the operation pipeline
   * (runtime/operations/audit.ts): the store write that receives this context appends it in
   * the same transaction.
   */
  audit?: AuditRecord;
  /**
   * The trace the call's spans join (runtime/telemetry/tracing.ts), handed down explicitly
   * rather than through an AsyncLocalStorage, whose promise hooks would cost every call of the
   * process. Opaque here; absent when the call is not traced.
   */
  trace?: unknown;
}

/** One operation: input is the tool's arguments (REST adapters build the same object). */
export type Operation = (input: unknown, call: CallContext) => Promise<unknown>;

/**
 * The member of `createOperations(rt)` that runs the app's `on startup` hooks in one write
 * transaction (present only when there are hooks). No tool name can look like it.
 */
export const startupOperation = "(startup)";

/** The member that runs the program's `main { … }` block in one write transaction (`wo exec`). */
export const mainOperation = "(main)";

/** The member that runs the program's `index`-th `test` block (catalog.tests) in one write transaction. */
export function testOperation(index: number): string {
  return `(test) ${index}`;
}

/**
 * The member that runs job `name` (spec/operations.md, "Jobs") by its free fn, in one write
 * transaction, the job's fields as the fn's arguments; absent for a job an external worker runs.
 */
export function jobOperation(name: string): string {
  return `(job) ${name}`;
}

/** operations.js: `export function createOperations(rt): Record<toolName, Operation>`. */
export interface OperationsModule {
  createOperations(rt: OperationRuntime): Record<string, Operation>;
}
