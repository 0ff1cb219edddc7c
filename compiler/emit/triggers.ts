// The trigger emitter: the program's triggers (CatalogTrigger, typed by check/triggers.ts) →
// one `rt.defineTriggers([...])` statement inside `createOperations(rt)`, whose entries the
// runtime runs in every write transaction (runtime/operations/triggers.ts,
// model/build-contract.ts `TriggerDefinition`). Conditions, set values and actions are printed
// by the method emitter (./methods.ts, ./method-expr.ts) from the same typing the checker made;
// an `emit` is a call of `rt.emitEvent` with its argument values (runtime/app-events.ts), an
// `enqueue` one of `rt.enqueueJob` with its fields' values (runtime/jobs/queue.ts).

import { CodeBlockWriter } from "ts-morph";
import type { Block, Expr, IfStmt, LetStmt, UpdateStmt } from "../ast.js";
import type { Catalog, CatalogTrigger, CatalogType } from "../catalog.js";
import { triggerMethod } from "../check/triggers.js";
import { typeMethod } from "../check/methods.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { jsComment, jsString } from "./js-literal.js";
import {
  condition,
  helpersLine,
  jsName,
  objectKey,
  printExpr,
  prop,
  rowAlias,
  type ExprContext,
} from "./method-expr.js";
import { rowTypeDeclarations, storedValue, writer, writeStmt } from "./methods.js";

/** The statement registering every trigger of `catalog`, in a block of its own; undefined when there are none. */
export function emitTriggers(catalog: Catalog): string | undefined {
  const entries: string[] = [];
  const rowTypes = new Set<string>();
  for (const type of catalog.types) {
    for (const trigger of type.triggers ?? []) entries.push(emitTrigger(catalog, type, trigger, rowTypes));
  }
  if (entries.length === 0) return undefined;
  const w = writer();
  // A block: the row aliases stay apart from those the free fns declare.
  w.write("").block(() => {
    w.writeLine(rowTypeDeclarations(catalog, rowTypes));
    w.write("rt.defineTriggers([").newLine();
    w.indent(() => {
      for (const e of entries) w.writeLine(`${e},`);
    });
    w.writeLine("]);");
  });
  return w.toString().trimEnd();
}

function emitTrigger(
  catalog: Catalog,
  type: CatalogType,
  trigger: CatalogTrigger<Block>,
  rowTypes: Set<string>,
): string {
  const method = triggerMethod(trigger);
  const typing = typeMethod(catalog, type, method, new DiagnosticBag());
  const ctx: ExprContext = { catalog, owner: type, typing, rowTypes, helpers: new Set(), params: new Set() };
  rowTypes.add(type.name);
  const branch = trigger.body.statements.find((s): s is IfStmt => s.kind === "IfStmt")!;
  const sets = branch.then.statements.slice(0, trigger.sets) as UpdateStmt[];
  const emitted = (trigger.emits ?? []).reduce((n, e) => n + e.args, 0);
  const enqueued = (trigger.enqueues ?? []).reduce((n, e) => n + e.fields.length, 0);
  const all = branch.then.statements;
  const runs = all.slice(trigger.sets, all.length - emitted - enqueued);
  const emitArgs = all.slice(all.length - emitted - enqueued, all.length - enqueued) as LetStmt[];
  const jobFields = all.slice(all.length - enqueued) as LetStmt[];

  const before = fnWriter();
  const setFields: string[] = [];
  before.writeLine(`if (!${condition(ctx, branch.condition, 7)}) return undefined;`);
  for (const s of sets) {
    const a = s.assignments[0]!;
    const field = type.fields.find((f) => f.name === a.field.text)!;
    before.writeLine(`// ${jsComment(`${s.span.file}:${s.span.line}`)}`);
    before.writeLine(`self = { ...self, ${objectKey(field.name)}: ${storedValue(ctx, field, a.value)} };`);
    if (!setFields.includes(field.name)) setFields.push(field.name);
  }
  const given = setFields.map((f) => `${objectKey(f)}: ${prop("self", f)}`);
  before.writeLine(given.length > 0 ? `return { ${given.join(", ")} };` : "return {};");

  let actions: CodeBlockWriter | undefined;
  if (runs.length + (trigger.emits?.length ?? 0) + (trigger.enqueues?.length ?? 0) > 0) {
    actions = fnWriter();
    for (const s of runs) writeStmt(actions, ctx, s);
    // Each `emit`, once the other actions succeeded: the event is written in this transaction.
    let next = 0;
    for (const e of trigger.emits ?? []) {
      const args = emitArgs.slice(next, (next += e.args));
      const at = args[0]?.span ?? trigger.body.span;
      actions.writeLine(`// ${jsComment(`${at.file}:${at.line}`)}`);
      const values = args.map((a) => printExpr(ctx, a.value as Expr)).join(", ");
      actions.writeLine(
        `await rt.emitEvent(tx, { name: ${jsString(e.name)}, type: ${jsString(type.name)}, table: ${jsString(type.table)}, row: self, args: [${values}] });`,
      );
    }
    // Each `enqueue`, last: the job is a row of the outbox written in this transaction.
    next = 0;
    for (const j of trigger.enqueues ?? []) {
      const fields = jobFields.slice(next, (next += j.fields.length));
      const at = fields[0]?.span ?? trigger.body.span;
      actions.writeLine(`// ${jsComment(`${at.file}:${at.line}`)}`);
      const values = fields.map((f, i) => `${objectKey(j.fields[i]!)}: ${printExpr(ctx, f.value as Expr)}`).join(", ");
      actions.writeLine(
        `await rt.enqueueJob(tx, { name: ${jsString(j.name)}, type: ${jsString(type.name)}, row: self, args: { ${values} } });`,
      );
    }
  }

  const w = writer();
  w.write("").inlineBlock(() => {
    w.writeLine(`table: ${jsString(type.table)},`);
    w.writeLine(`event: ${jsString(trigger.event)},`);
    w.writeLine(`name: ${jsString(trigger.name)},`);
    writeMember(w, "before", ctx, trigger, before);
    if (actions) writeMember(w, "actions", ctx, trigger, actions);
  });
  return w.toString().trimEnd();
}

function fnWriter(): CodeBlockWriter {
  return new CodeBlockWriter({ newLine: "\n", indentNumberOfSpaces: 2, useTabs: false, useSingleQuote: false });
}

/** `async before(tx, budget, old, row) { … }`: the trigger's names bound, then `body`. */
function writeMember(
  w: CodeBlockWriter,
  name: "before" | "actions",
  ctx: ExprContext,
  trigger: CatalogTrigger<Block>,
  body: CodeBlockWriter,
): void {
  const alias = rowAlias(ctx.owner!.name);
  w.write(`async ${name}(tx, budget, old, row)`).inlineBlock(() => {
    const helpers = helpersLine(ctx.helpers);
    if (helpers) w.writeLine(helpers);
    // The names the trigger's text may use: old (update, delete), new (create, update), self.
    if (trigger.event !== "create") w.writeLine(`const ${jsName("old")} = old as ${alias};`);
    if (trigger.event !== "delete") w.writeLine(`const ${jsName("new")} = row as ${alias};`);
    // `let`: a `set` (or an `update self` action) gives `self` the row as it now is.
    w.writeLine(`let self = row as ${alias};`);
    w.write(body.toString());
  });
  w.write(",").newLine();
}
