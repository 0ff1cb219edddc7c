// Triggers (spec/language.md, "Triggers"): a type's `on create|update|delete [when …] do …`
// members → CatalogTrigger, typed by the method checker as one small body of the type, so a
// condition or an action means exactly what it would in a method and its mistakes are
// reported the same way (WO5xxx at file:line:col).
//
// The body a trigger is typed as (and compiled from, compiler/emit/triggers.ts):
//   let new = self        -- create and update: the row as it will be stored
//   let old = self        -- update and delete: the row before the write
//   if <when> { <each set as `update self set f = e`>; <each call and write> }
// `old` and `new` are rows of the type like `self`; which of them exist follows the event,
// so `old` in an `on create` trigger is an unknown name. Each `emit`'s arguments, then each
// `enqueue`'s fields, end the block as `let`s (emitArgs, enqueueFields), typed like a call's
// arguments; a job whose name names a free fn (hyphens as underscores) is also typed as a call
// of that fn, so its fields fit its parameters (checkTriggerBodies).

import type {
  Block,
  EmitAction,
  EnqueueAction,
  Expr,
  LetStmt,
  MemberExpr,
  NameExpr,
  Stmt,
  Trigger,
  TypeDecl,
  UpdateStmt,
} from "../ast.js";
import type { Catalog, CatalogMethod, CatalogTrigger, CatalogType } from "../catalog.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { locationOf } from "./context.js";
import type { SkippedFunctions } from "./functions.js";
import { typeMethod } from "./methods.js";

/** The row events a type-level trigger may name (the reference's `on create|update|delete`). */
export const triggerEvents = ["create", "update", "delete"] as const;

type TriggerEvent = (typeof triggerEvents)[number];

/** The triggers of `decl` that run. Unknown events are reported by unexecuted.ts (WO2030). */
export function buildTriggers(decl: TypeDecl, bag: DiagnosticBag): CatalogTrigger<Block>[] {
  const out: CatalogTrigger<Block>[] = [];
  for (const m of decl.members) {
    if (m.kind !== "Trigger") continue;
    const event = m.event.text as TriggerEvent;
    if (!triggerEvents.includes(event)) continue;
    const built = buildTrigger(decl, m, event, bag);
    if (built) out.push(built);
  }
  return out;
}

function buildTrigger(
  decl: TypeDecl,
  m: Trigger,
  event: TriggerEvent,
  bag: DiagnosticBag,
): CatalogTrigger<Block> | undefined {
  const sets: Stmt[] = [];
  const runs: Stmt[] = [];
  const emits: EmitAction[] = [];
  const enqueues: EnqueueAction[] = [];
  let isReadable = m.whenText === undefined || m.when !== undefined;
  for (const action of m.actions) {
    if (action.verb === "emit") {
      if (!action.emit)
        isReadable = false; // its syntax error is reported (trigger-parts.ts)
      else if (eventNameProblem(action.emit.name)) {
        bag.report("WO2060", action.emit.nameSpan, {
          name: action.emit.name,
          why: eventNameProblem(action.emit.name)!,
        });
        isReadable = false;
      } else emits.push(action.emit);
      continue;
    }
    if (action.verb === "enqueue") {
      const job = action.enqueue;
      if (!job)
        isReadable = false; // its syntax error is reported (trigger-parts.ts)
      else if (jobNameProblem(job)) {
        bag.report("WO2065", job.nameSpan, { name: job.name, why: jobNameProblem(job)! });
        isReadable = false;
      } else enqueues.push(job);
      continue;
    }
    if (!action.run) {
      isReadable = false; // its syntax error is reported (compiler/syntax/trigger-parts.ts)
      continue;
    }
    if (action.verb === "set" && event === "delete") {
      bag.report("WO2031", action.span, {});
      continue;
    }
    (action.verb === "set" ? sets : runs).push(action.run);
  }
  if (event === "create") {
    // Before the insert the row has no id yet: `self.id` there would be null, typed Int.
    for (const e of [m.when, ...sets.map((s) => (s as UpdateStmt).assignments[0]!.value)]) {
      const read = e && idRead(e);
      if (read) bag.report("WO2032", read.span, { name: (read.object as NameExpr).name.text });
    }
  }
  if (!isReadable) return undefined;
  const at = m.event.span;
  const statements: Stmt[] = [];
  if (event !== "delete") statements.push(rowName("new", at));
  if (event !== "create") statements.push(rowName("old", at));
  statements.push({
    kind: "IfStmt",
    condition: m.when ?? {
      kind: "LiteralExpr",
      literal: { kind: "Literal", value: true, literalType: "bool", span: at },
      span: at,
    },
    // biome-ignore lint/suspicious/noThenProperty: the AST's IfStmt names its branch `then`
    then: {
      kind: "Block",
      statements: [...sets, ...runs, ...emits.flatMap(emitArgs), ...enqueues.flatMap(enqueueFields)],
      span: m.span,
    },
    span: m.span,
  });
  const built: CatalogTrigger<Block> = {
    event,
    name: `${decl.name.text} on ${event} (${m.span.file}:${m.span.line})`,
    sets: sets.length,
    ...(emits.length > 0 ? { emits: emits.map((e) => ({ name: e.name, args: e.args.length })) } : {}),
    ...(enqueues.length > 0
      ? { enqueues: enqueues.map((e) => ({ name: e.name, fields: e.fields.map((f) => f.name.text) })) }
      : {}),
    body: { kind: "Block", statements, span: m.span },
    source: locationOf(m.span),
  };
  if (enqueues.length > 0) enqueuedBy.set(built, enqueues);
  return built;
}

/** The `enqueue` actions of each trigger as read, for checkTriggerBodies' spans. */
const enqueuedBy = new WeakMap<CatalogTrigger<Block>, EnqueueAction[]>();

/**
 * Why `job` cannot be enqueued, or undefined. Its name is a path segment of the worker API
 * (`?name=`) and the fn it runs is found by it, so it is short and plain; a field is given once.
 */
function jobNameProblem(job: EnqueueAction): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(job.name))
    return "it must start with a letter and hold only letters, digits, '_', '.' and '-' (at most 64)";
  const seen = new Set<string>();
  for (const f of job.fields) {
    if (seen.has(f.name.text)) return `its field '${f.name.text}' is given twice`;
    seen.add(f.name.text);
  }
  return undefined;
}

/** The free fn that runs job `name` (spec/operations.md, "Jobs"): hyphens as underscores. */
export function jobFunctionName(name: string): string {
  return name.replaceAll("-", "_");
}

/** A job's fields as the `let`s the checker types and the emitter prints the values of. */
function enqueueFields(e: EnqueueAction): LetStmt[] {
  return e.fields.map((f) => ({
    kind: "LetStmt",
    name: { text: `(enqueue ${e.name} ${f.name.text})`, span: f.value.span },
    value: f.value,
    span: f.span,
  }));
}

/**
 * Why `name` cannot name an event, or undefined: it is an SSE `event:` field and the last part
 * of the MCP resource `wo://events/<name>`, so it is short and plain, and `reset` is the stream's
 * own event (spec/live.md, "Application events").
 */
export function eventNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(name))
    return "it must start with a letter and hold only letters, digits, '_', '.' and '-' (at most 64)";
  if (name === "reset") return "'reset' is the event a live stream sends when it cannot resume";
  return undefined;
}

/**
 * An `emit`'s arguments as the `let`s the checker types and the emitter prints the values of
 * (compiler/emit/triggers.ts): the trigger's names are in scope, as in a call's arguments.
 */
function emitArgs(e: EmitAction): LetStmt[] {
  return e.args.map((value, i) => ({
    kind: "LetStmt",
    name: { text: `(emit ${e.name} ${i})`, span: value.span },
    value,
    span: value.span,
  }));
}

/** The first `self.id` / `new.id` inside `e`, in source order. */
function idRead(e: Expr): MemberExpr | undefined {
  let first: MemberExpr | undefined;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const x = node as Expr;
    if (
      x.kind === "MemberExpr" &&
      x.member.text === "id" &&
      x.object.kind === "NameExpr" &&
      (x.object.name.text === "self" || x.object.name.text === "new") &&
      (!first || x.span.offset < first.span.offset)
    )
      first = x;
    for (const value of Object.values(node)) if (typeof value === "object") visit(value);
  };
  visit(e);
  return first;
}

/** `let old = self`: the name the trigger's text uses for a row of the type. */
function rowName(name: "old" | "new", at: Expr["span"]): LetStmt {
  const self: Expr = { kind: "NameExpr", name: { text: "self", span: at }, span: at };
  return { kind: "LetStmt", name: { text: name, span: at }, value: self, span: at };
}

/** The trigger as the method checker and emitter take a body: a method of its type without parameters. */
export function triggerMethod(trigger: CatalogTrigger<Block>): CatalogMethod {
  return { name: `(on ${trigger.event})`, params: [], body: trigger.body, source: trigger.source };
}

/** Types every trigger's condition and actions; call with the method bodies (program.ts). */
export function checkTriggerBodies(catalog: Catalog, bag: DiagnosticBag, skipped: SkippedFunctions): void {
  for (const type of catalog.types as CatalogType[]) {
    for (const trigger of type.triggers ?? []) {
      typeMethod(catalog, type, triggerMethod(trigger), bag, skipped);
      for (const job of enqueuedBy.get(trigger) ?? []) checkJobCall(catalog, type, trigger, job, bag, skipped);
    }
  }
}

/**
 * A job run by a free fn: its fields are that fn's arguments by name, each given once, so the
 * fields and the parameters are the same names; then the call `fn(fields in parameter order)`
 * is typed in the trigger's scope like any call, and what that says of the arguments (their
 * types) is reported, once: mistakes inside a field's value were reported with the trigger.
 */
function checkJobCall(
  catalog: Catalog,
  type: CatalogType,
  trigger: CatalogTrigger<Block>,
  job: EnqueueAction,
  bag: DiagnosticBag,
  skipped: SkippedFunctions,
): void {
  const fnName = jobFunctionName(job.name);
  const fn = catalog.functions?.find((f) => f.name === fnName);
  if (!fn) return; // an external worker's job
  const given = job.fields.map((f) => f.name.text);
  const params = fn.params.map((p) => p.name);
  const missing = params.filter((p) => !given.includes(p));
  const unknown = given.filter((g) => !params.includes(g));
  if (missing.length + unknown.length > 0) {
    const why = [
      ...(missing.length > 0 ? [`${missing.map((n) => `'${n}'`).join(", ")} missing`] : []),
      ...(unknown.length > 0 ? [`${unknown.map((n) => `'${n}'`).join(", ")} not a parameter`] : []),
    ].join("; ");
    bag.report("WO2066", job.nameSpan, { name: job.name, fn: fn.name, params: params.join(", "), why });
    return;
  }
  const args = params.map((p) => job.fields.find((f) => f.name.text === p)!.value);
  const call: Stmt = {
    kind: "ExprStmt",
    expr: { kind: "CallExpr", callee: { text: fn.name, span: job.nameSpan }, args, span: job.nameSpan },
    span: job.nameSpan,
  };
  const branch = trigger.body.statements.find((s) => s.kind === "IfStmt")!;
  const body: Block = {
    ...trigger.body,
    statements: trigger.body.statements.map((s) =>
      // biome-ignore lint/suspicious/noThenProperty: the AST's IfStmt names its branch `then`
      s === branch ? { ...branch, then: { ...branch.then, statements: [call] } } : s,
    ),
  };
  const own = new DiagnosticBag();
  typeMethod(catalog, type, { ...triggerMethod(trigger), body }, own, skipped);
  const said = new Set(bag.items.map((d) => `${d.code} ${d.span.file}:${d.span.offset}`));
  for (const d of own.items) if (!said.has(`${d.code} ${d.span.file}:${d.span.offset}`)) bag.items.push(d);
}
