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
// so `old` in an `on create` trigger is an unknown name. Each `emit`'s arguments end the block
// as `let`s (emitArgs), typed like a call's arguments. `enqueue` is not run yet: a warning
// (WO2115), and a trigger with nothing else is not executed (WO2102).

import type {
  Block,
  EmitAction,
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
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
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
      bag.report("WO2115", action.span, { verb: action.verb, event });
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
  if (sets.length + runs.length + emits.length === 0) {
    // Only enqueue: nothing of it runs.
    bag.report("WO2102", m.span, { event });
    return undefined;
  }
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
    then: { kind: "Block", statements: [...sets, ...runs, ...emits.flatMap(emitArgs)], span: m.span },
    span: m.span,
  });
  return {
    event,
    name: `${decl.name.text} on ${event} (${m.span.file}:${m.span.line})`,
    sets: sets.length,
    ...(emits.length > 0 ? { emits: emits.map((e) => ({ name: e.name, args: e.args.length })) } : {}),
    body: { kind: "Block", statements, span: m.span },
    source: locationOf(m.span),
  };
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
    for (const trigger of type.triggers ?? []) typeMethod(catalog, type, triggerMethod(trigger), bag, skipped);
  }
}
