// The build contract: what `wo build` writes into the build folder (<app>/.wo/build by
// default) and what the runtime loads from it. The compiler's emitters produce exactly this;
// the runtime reads nothing else and never imports from compiler/.
//
//   manifest.json     DESIGN.md's manifest: { tools, resourceTemplates, routes }
//   catalog.json      the resolved model (model/app.ts `Catalog`)
//   schemas.json      BuildSchemas below
//   openapi.json      OpenAPI 3.1 for /api
//   types.d.ts        row and input types for clients
//   validators.ts/.js ajv standalone validators, one per input schema (see ValidatorsModule)
//   operations.ts/.js generated operation handlers (see OperationsModule)
//   build-info.json   BuildInfo below: the up-to-date check
//
// Generated JavaScript imports no package by name (a user's app folder has no node_modules):
// what it needs is handed in by the runtime — `require` for ajv's runtime helpers and the
// OperationRuntime for everything else.

import type { Row, Store, StoreTx } from "./store.js";
import type { ErrorDetail } from "./errors.js";

/**
 * The version of the contract between generated code and this runtime (the OperationRuntime
 * calls operations.js makes, the files' layout). Bumped whenever it changes, so a build made
 * by an earlier wo is rebuilt (`wo run`) or refused with a clear message (loadBuild) instead
 * of running against functions whose meaning moved. 2: checkRefs(tx, table, values).
 * 3: listPage(table, input) serves `_list`.
 */
export const buildFormat = 3;

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
  checkRefs(tx: StoreTx, table: string, values: Row, pointers?: readonly (readonly [field: string, pointer: string])[]): Promise<void>;
  /** Throws OperationError("conflict") naming the tables/fields that still reference the row. */
  checkNotReferenced(tx: StoreTx, table: string, id: number): Promise<void>;
  /**
   * Adds the link row `row` of link table `table` whose endpoint columns hold `ends`, unless
   * that pair is linked already (then that link, created: false). runtime/operations/links.ts.
   */
  link(tx: StoreTx, table: string, ends: Readonly<Record<string, number>>, row: Row): Promise<{ created: boolean; link: Row }>;
  /** Removes the link of that pair; false when there was none. runtime/operations/links.ts. */
  unlink(tx: StoreTx, table: string, ends: Readonly<Record<string, number>>): Promise<boolean>;
  /**
   * One page of a `_list` whose input has passed its schema: filters, `sort`, `cursor`,
   * `limit` and `count` (runtime/operations/list-page.ts).
   */
  listPage(table: string, input: Row): Promise<{ items: Row[]; nextCursor?: string; total?: number }>;
  notFound(typeName: string, id: unknown): never;
  invalid(message: string, details?: ErrorDetail[]): never;
  abort(message: string): never;
  /**
   * `value` (the result of Int/Money `+`, `-` or `*` at `at`, `file.wo:LINE`) when it is a safe
   * integer; otherwise throws OperationError("aborted"). runtime/operations/int-arithmetic.ts.
   */
  checkedInt(value: number, at: string): number;
}

export interface CallContext {
  /** Aborted when the caller cancels (MCP notifications/cancelled) or disconnects. */
  signal?: AbortSignal;
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

/** operations.js: `export function createOperations(rt): Record<toolName, Operation>`. */
export interface OperationsModule {
  createOperations(rt: OperationRuntime): Record<string, Operation>;
}
