// The operations emitter: writes the build's `operations.ts` (model/build-contract.ts
// `OperationsModule`): what only compiled code can do — one handler per exposed method, keyed
// by its tool name from the operations table, the free fns and methods bodies call, and the
// `on startup`, `main` and test entry points. CRUD and relation operations are not generated:
// the runtime runs them from the table (runtime/operations/table-operations.ts), and it
// validates every input before a handler runs. Method bodies come from `emitMethodHandler`
// (./methods.ts), whose text is inserted verbatim.
//
// The generated file imports no package: a user's app folder has no node_modules. The one
// `import type` vanishes when compiled. Output is deterministic: handlers sorted by tool name,
// fields in declaration order, no timestamps or absolute paths.

import { CodeBlockWriter } from "ts-morph";
import type { Catalog, CatalogMethod, CatalogType } from "../catalog.js";
import type { RunKind } from "../../model/app.js";
import type { EmittedFile } from "./emitted-file.js";
import { methodOf } from "./exposed-ops.js";
import { operationTable } from "./operation-table.js";
import { generatedHeader } from "./header.js";
import {
  jobOperation,
  mainOperation,
  startupOperation,
  testOperation,
  type OperationEntry,
} from "../../model/build-contract.js";
import { functionName, methodFunctionName } from "./method-expr.js";
import { emitFunction, emitMethodHandler, rowTypeDeclarations } from "./methods.js";
import { typeMethod } from "../check/methods.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { jsString } from "./js-literal.js";
import { typesByName } from "../../model/type-index.js";
import { emitTriggers } from "./triggers.js";
import { emitRowExprs } from "./row-exprs.js";
import { jobFunctionName, triggerMethod } from "../check/triggers.js";

interface Handler {
  name: string;
  text: string;
}

export function emitOperations(
  catalog: Catalog,
  table: readonly OperationEntry[] = operationTable(catalog),
): EmittedFile {
  // Only methods: the runtime runs CRUD and relation operations from the table itself.
  const handlers: Handler[] = [];
  for (const entry of table) {
    if (entry.kind !== "method") continue;
    const type = typesByName(catalog).get(entry.type)!;
    const method = methodOf(type, entry.op);
    if (method) handlers.push({ name: entry.name, text: emitMethodHandler(catalog, type, method, entry.name) });
  }

  const w = newWriter();
  w.writeLine(generatedHeader(catalog));
  w.blankLine();
  w.writeLine(`import type { CallContext, OperationRuntime, RunBudgetCounter } from "wo/model/build-contract";`);
  w.blankLine();
  w.write("export function createOperations(rt: OperationRuntime)").block(() => {
    // The transaction a handler opens, as free fns and the `deref` helper take it.
    w.writeLine(`type Tx = Parameters<Parameters<OperationRuntime["store"]["write"]>[0]>[0];`);
    const functions = [...(catalog.functions ?? []), ...(catalog.main ? [catalog.main] : [])];
    const called = calledMethods(catalog);
    if (functions.length > 0 || called.length > 0 || catalog.tests?.some((t) => t.fn)) {
      // Free fns (and `main` as f_main: `main` is a keyword, so no fn has that name), called by
      // the handlers below inside their transaction.
      const rowTypes = new Set<string>();
      const fns = functions.map((fn) => emitFunction(catalog, fn, rowTypes));
      // Methods some body calls as `o.m()`, as m_Type$m.
      for (const { type, method } of called)
        fns.push(emitFunction(catalog, method, rowTypes, methodFunctionName(type.name, method.name), type));
      // Tests as t_0, t_1, …: no fn name starts with `t_` once prefixed `f_`.
      (catalog.tests ?? []).forEach((t, i) => {
        if (t.fn) fns.push(emitFunction(catalog, t.fn, rowTypes, `t_${i}`));
      });
      if (rowTypes.size > 0) w.writeLine(rowTypeDeclarations(catalog, rowTypes));
      // Calls of fns and methods nest through rt.helpers.nested, which bounds their depth.
      w.writeLine("const { nested } = rt.helpers;");
      for (const text of fns) w.writeLine(dedentTail(text)).blankLine();
    }
    // Triggers: registered with the runtime, which runs them in every write (emit/triggers.ts).
    const triggers = emitTriggers(catalog);
    if (triggers) w.writeLine(triggers);
    const jobs = jobFunctions(catalog);
    // Checks and computed fields: registered with the runtime, which runs them on writes and reads (emit/row-exprs.ts).
    const rowExprs = emitRowExprs(catalog);
    if (rowExprs) w.writeLine(rowExprs);
    const hasMembers =
      handlers.length > 0 ||
      jobs.length > 0 ||
      catalog.startup !== undefined ||
      catalog.main !== undefined ||
      (catalog.tests ?? []).some((t) => t.fn);
    if (!hasMembers) {
      w.writeLine("return {};");
      return;
    }
    w.write("return ")
      .inlineBlock(() => {
        handlers.forEach((h, i) => {
          if (i > 0) w.blankLine();
          w.writeLine(`${dedentTail(h.text)},`);
        });
        // `on startup` hooks: once per start, before serving, all in one transaction.
        // Each runs under the budget of its kind (runtime/operations/run-budget.ts).
        if (catalog.startup)
          writeEntryPoint(w, startupOperation, catalog.startup.map(functionName), handlers.length > 0, [
            "exec",
            "on startup",
          ]);
        // `main { … }`: what `wo exec` runs, in one transaction.
        if (catalog.main)
          writeEntryPoint(
            w,
            mainOperation,
            [functionName("main")],
            handlers.length > 0 || catalog.startup !== undefined,
            ["exec", "main"],
          );
        // `test "…" { … }`: what `wo test` runs, each in its own transaction on a fresh store.
        (catalog.tests ?? []).forEach((t, i) => {
          if (t.fn) writeEntryPoint(w, testOperation(i), [`t_${i}`], true, ["test", `Test ${JSON.stringify(t.name)}`]);
        });
        // Jobs a free fn runs: the job runner calls each with the job's fields (runtime/jobs/).
        for (const { job, fn } of jobs) writeJobEntryPoint(w, job, fn);
      })
      .write(";")
      .newLine();
  });
  w.newLineIfLastNot();
  return { path: "operations.ts", text: w.toString() };
}

/**
 * A member `"(name)"` that runs the given generated functions, in order, in one write
 * transaction, as one run of `kind` named `what` in its budget's message.
 */
function writeEntryPoint(
  w: CodeBlockWriter,
  member: string,
  fns: string[],
  afterOthers: boolean,
  [kind, what]: [RunKind, string],
): void {
  if (afterOthers) w.blankLine();
  w.write(`async ${jsString(member)}(_input: unknown, call: CallContext)`).block(() => {
    w.write(
      `return rt.store.write(rt.budgeted(${jsString(kind)}, ${jsString(what)}, call, async (tx, budget) => `,
    ).inlineBlock(() => {
      for (const name of fns) w.writeLine(`await ${name}(tx, budget);`);
      w.writeLine("return null;");
    });
    w.write("), call);").newLine();
  });
  w.write(",").newLine();
}

/**
 * The jobs a trigger enqueues whose name names a free fn (hyphens as underscores), each once,
 * by name: the checker made sure their fields are that fn's parameters.
 */
function jobFunctions(catalog: Catalog): { job: string; fn: CatalogMethod }[] {
  const names = new Set<string>();
  for (const t of catalog.types)
    for (const tr of t.triggers ?? []) for (const j of tr.enqueues ?? []) names.add(j.name);
  return [...names].sort().flatMap((job) => {
    const fn = catalog.functions?.find((f) => f.name === jobFunctionName(job));
    return fn ? [{ job, fn }] : [];
  });
}

/** `"(job) name"`: the job's fn with its fields as arguments, in one write transaction of its own. */
function writeJobEntryPoint(w: CodeBlockWriter, job: string, fn: CatalogMethod): void {
  w.blankLine();
  w.write(`async ${jsString(jobOperation(job))}(input: unknown, call: CallContext)`).block(() => {
    w.writeLine("const args = input as Record<string, never>;");
    w.write(
      `return rt.store.write(rt.budgeted("method", ${jsString(`Job ${job}`)}, call, async (tx, budget) => `,
    ).inlineBlock(() => {
      const args = fn.params.map((p) => `, args[${jsString(p.name)}]`).join("");
      w.writeLine(`await ${functionName(fn.name)}(tx, budget${args});`);
      w.writeLine("return null;");
    });
    w.write("), call);").newLine();
  });
  w.write(",").newLine();
}

function newWriter(): CodeBlockWriter {
  return new CodeBlockWriter({ newLine: "\n", indentNumberOfSpaces: 2, useTabs: false, useSingleQuote: false });
}

/**
 * A member's text may arrive pre-indented for some nesting level: strip the closing line's
 * indentation from every later line, so the writer indents it for where it goes.
 */
function dedentTail(text: string): string {
  const lines = text.trimEnd().split("\n");
  const base = /^[ \t]*/.exec(lines[lines.length - 1]!)![0].length;
  return lines
    .map((line, i) => (i === 0 ? line : line.slice(Math.min(base, /^[ \t]*/.exec(line)![0].length))))
    .join("\n");
}

/** The class methods some body calls as `o.m()`: each is also emitted as a function taking tx. */
function calledMethods(catalog: Catalog): { type: CatalogType; method: CatalogMethod }[] {
  const bodies: [CatalogType | undefined, CatalogMethod][] = [
    ...catalog.types.flatMap((t) => t.methods.map((m): [CatalogType, CatalogMethod] => [t, m])),
    ...[
      ...(catalog.functions ?? []),
      ...(catalog.main ? [catalog.main] : []),
      ...(catalog.tests ?? []).flatMap((t) => (t.fn ? [t.fn] : [])),
    ].map((f): [undefined, CatalogMethod] => [undefined, f]),
  ];
  for (const t of catalog.types) for (const trigger of t.triggers ?? []) bodies.push([t, triggerMethod(trigger)]);
  const names = new Set<string>();
  for (const [owner, body] of bodies) {
    for (const [e, call] of typeMethod(catalog, owner, body, new DiagnosticBag()).methodCalls)
      names.add(`${call.type}.${e.method.text}`);
  }
  return catalog.types.flatMap((type) =>
    type.methods.filter((m) => names.has(`${type.name}.${m.name}`)).map((method) => ({ type, method })),
  );
}
