// The operations emitter: writes the build's `operations.ts`, one small handler per exposed
// (REST or MCP) type × op, keyed by tool name (model/build-contract.ts `OperationsModule`).
//
// Owns: the shape of each CRUD handler — validate → defaults → one store transaction → result.
// Leaves to the runtime (`OperationRuntime`) every wording of an error, ref and reference
// checks, list queries (filters, sort, cursor: `listPage`) and the store; leaves method bodies
// to `emitMethodHandler` (./methods.ts), whose text is inserted verbatim.
//
// The generated file imports no package: a user's app folder has no node_modules. The one
// `import type` vanishes when compiled. Output is deterministic: handlers sorted by tool name,
// fields in declaration order, no timestamps or absolute paths.

import { CodeBlockWriter } from "ts-morph";
import type { Catalog, CatalogField, CatalogMethod, CatalogType, CrudOp } from "../catalog.js";
import { toolName } from "../../model/naming.js";
import type { EmittedFile } from "./emitted-file.js";
import { exposedOps, isCrudOp, methodOf } from "./exposed-ops.js";
import { generatedHeader } from "./header.js";
import { mainOperation, startupOperation, testOperation } from "../../model/build-contract.js";
import { functionName, methodFunctionName } from "./method-expr.js";
import { emitFunction, emitMethodHandler, rowTypeDeclarations } from "./methods.js";
import { typeMethod } from "../check/methods.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { refCheckLine } from "./ref-checks.js";
import { jsIdentifier, jsJson, jsString } from "./js-literal.js";
import { allRelationOps, type RelationOp as ModelRelationOp } from "../../model/relations.js";
import type { Block } from "../ast.js";

/** A relation op of the compiler's catalog (method bodies as checked AST). */
type RelationOp = ModelRelationOp<Block>;

interface Handler {
  name: string;
  text: string;
}

export function emitOperations(catalog: Catalog): EmittedFile {
  const handlers: Handler[] = [];
  for (const type of catalog.types) {
    for (const op of exposedOps(type)) {
      const name = toolName(type.name, op);
      if (isCrudOp(op)) {
        handlers.push({ name, text: emitCrudHandler(catalog, type, op) });
        continue;
      }
      const method = methodOf(type, op);
      if (method) handlers.push({ name, text: emitMethodHandler(catalog, type, method) });
    }
    for (const r of allRelationOps(catalog, type)) {
      handlers.push({ name: toolName(type.name, r.op), text: emitRelationHandler(catalog, type, r) });
    }
  }
  handlers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const w = newWriter();
  w.writeLine(generatedHeader(catalog));
  w.blankLine();
  w.writeLine(`import type { CallContext, OperationRuntime } from "wo/model/build-contract";`);
  w.blankLine();
  w.writeLine("// Inputs have passed their schema by the time a handler reads them.");
  w.writeLine("type Input = Record<string, any>;");
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
      for (const { type, method } of called) fns.push(emitFunction(catalog, method, rowTypes, methodFunctionName(type.name, method.name), type));
      // Tests as t_0, t_1, …: no fn name starts with `t_` once prefixed `f_`.
      (catalog.tests ?? []).forEach((t, i) => {
        if (t.fn) fns.push(emitFunction(catalog, t.fn, rowTypes, `t_${i}`));
      });
      if (rowTypes.size > 0) w.writeLine(rowTypeDeclarations(catalog, rowTypes));
      for (const line of nestedCallHelper) w.writeLine(line);
      for (const text of fns) w.writeLine(dedentTail(text)).blankLine();
    }
    w.write("return").block(() => {
      handlers.forEach((h, i) => {
        if (i > 0) w.blankLine();
        w.writeLine(`${dedentTail(h.text)},`);
      });
      // `on startup` hooks: once per start, before serving, all in one transaction.
      if (catalog.startup) writeEntryPoint(w, startupOperation, catalog.startup.map(functionName), handlers.length > 0);
      // `main { … }`: what `wo exec` runs, in one transaction.
      if (catalog.main) writeEntryPoint(w, mainOperation, [functionName("main")], handlers.length > 0 || catalog.startup !== undefined);
      // `test "…" { … }`: what `wo test` runs, each in its own transaction on a fresh store.
      (catalog.tests ?? []).forEach((t, i) => {
        if (t.fn) writeEntryPoint(w, testOperation(i), [`t_${i}`], true);
      });
    }).write(";").newLine();
  });
  w.newLineIfLastNot();
  return { path: "operations.ts", text: w.toString() };
}

/** A member `"(name)"` that runs the given generated functions, in order, in one write transaction. */
function writeEntryPoint(w: CodeBlockWriter, member: string, fns: string[], afterOthers: boolean): void {
  if (afterOthers) w.blankLine();
  w.write(`async ${jsString(member)}(_input: unknown, call: CallContext)`).block(() => {
    w.write("return rt.store.write(async (tx) =>").inlineBlock(() => {
      for (const name of fns) w.writeLine(`await ${name}(tx);`);
      w.writeLine("return null;");
    });
    w.write(", call);").newLine();
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
  return lines.map((line, i) => (i === 0 ? line : line.slice(Math.min(base, /^[ \t]*/.exec(line)![0].length)))).join("\n");
}

function emitCrudHandler(catalog: Catalog, type: CatalogType, op: CrudOp): string {
  const name = toolName(type.name, op);
  const table = jsString(type.table);
  const typeName = jsString(type.name);
  const w = newWriter();
  w.write(`async ${jsIdentifier(name)}(input: unknown, call: CallContext)`).block(() => {
    switch (op) {
      case "list":
        w.writeLine(`const data = rt.validate<Input>(${jsString(name)}, input);`);
        w.writeLine(`return rt.listPage(${table}, data);`);
        break;
      case "get":
        w.writeLine(`const { id } = rt.validate<Input>(${jsString(name)}, input);`);
        w.writeLine(`const row = await rt.store.read((tx) => tx.get(${table}, id));`);
        w.writeLine(`return row ?? rt.notFound(${typeName}, id);`);
        break;
      case "create":
        w.writeLine(`const data = rt.validate<Input>(${jsString(name)}, input);`);
        w.write("const row: Input = ").inlineBlock(() => {
          for (const f of type.fields.filter((f) => f.isWritable)) {
            w.writeLine(`${jsString(f.name)}: ${valueWithDefault(f)},`);
          }
        });
        w.write(";").newLine();
        w.write("return rt.store.write(async (tx) => ").inlineBlock(() => {
          writeRefCheck(w, catalog, type, "row");
          w.writeLine(`return tx.insert(${table}, row);`);
        });
        w.write(", call);").newLine();
        break;
      case "update":
        w.writeLine("// Partial: only the fields the input names change.");
        w.writeLine(`const { id, ...patch } = rt.validate<Input>(${jsString(name)}, input);`);
        w.write("return rt.store.write(async (tx) => ").inlineBlock(() => {
          w.writeLine(`if (!(await tx.get(${table}, id))) rt.notFound(${typeName}, id);`);
          writeRefCheck(w, catalog, type, "patch");
          w.writeLine(`return (await tx.update(${table}, id, patch)) ?? rt.notFound(${typeName}, id);`);
        });
        w.write(", call);").newLine();
        break;
      case "delete":
        w.writeLine(`const { id } = rt.validate<Input>(${jsString(name)}, input);`);
        w.write("return rt.store.write(async (tx) => ").inlineBlock(() => {
          w.writeLine(`if (!(await tx.get(${table}, id))) rt.notFound(${typeName}, id);`);
          w.writeLine(`await rt.checkNotReferenced(tx, ${table}, id);`);
          w.writeLine(`await tx.delete(${table}, id);`);
          w.writeLine("return { deleted: true, id };");
        });
        w.write(", call);").newLine();
        break;
      default: {
        const never: never = op;
        throw new Error(`unhandled op ${String(never)}`);
      }
    }
  });
  return w.toString().trimEnd();
}

/**
 * A relation op (spec/rest.md "Relations"). The owning row must exist (404); the target named
 * by add/remove must exist (422, the ref check of the link row). Reads page like `list`
 * (rt.listPage): a `via` relation in the order the links were made (the cursor is a link id), a
 * backlink in ascending id order. Add is idempotent (an existing link is returned with created: false), so
 * is remove (removed: false).
 */
function emitRelationHandler(catalog: Catalog, type: CatalogType, r: RelationOp): string {
  const name = toolName(type.name, r.op);
  const table = jsString(type.table);
  const typeName = jsString(type.name);
  const { target, path } = r.relation;
  const w = newWriter();
  const ownerMustExist = () => w.writeLine(`if (!(await tx.get(${table}, data.id))) rt.notFound(${typeName}, data.id);`);
  w.write(`async ${jsIdentifier(name)}(input: unknown, call: CallContext)`).block(() => {
    w.writeLine(`const data = rt.validate<Input>(${jsString(name)}, input);`);
    if (r.access === "read") {
      // Paged by the list pager (limit, cursor) over the rows that hold this row's id: the
      // target's rows themselves, or the links (in the order they were made, the cursor a link id).
      const [listed, column] = path.kind === "ref" ? [target.table, path.column] : [path.link.table, path.ownerColumn];
      w.writeLine(`if (!(await rt.store.read((tx) => tx.get(${table}, data.id)))) rt.notFound(${typeName}, data.id);`);
      w.writeLine(`const page = await rt.listPage(${jsString(listed)}, { limit: data.limit, cursor: data.cursor, where: { ${jsString(column)}: { eq: data.id } } });`);
      if (path.kind === "ref") {
        w.writeLine("return page;");
      } else {
        w.write("const items = await rt.store.read(async (tx) => ").inlineBlock(() => {
          w.writeLine("const rows: Input[] = [];");
          w.write("for (const link of page.items)").block(() => {
            w.writeLine(`const row = await tx.get(${jsString(target.table)}, link[${jsString(path.targetColumn)}] as number);`);
            w.writeLine("if (row) rows.push(row);");
          });
          w.writeLine("return rows;");
        });
        w.write(");").newLine();
        w.writeLine("return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };");
      }
      return;
    }
    if (path.kind !== "link") throw new Error(`relation ${r.op} has no link to write`);
    const link = path.link;
    const linkTable = jsString(link.table);
    const ends = `{ ${jsString(path.ownerColumn)}: data.id as number, ${jsString(path.targetColumn)}: data[${jsString(path.targetColumn)}] as number }`;
    w.write("return rt.store.write(async (tx) => ").inlineBlock(() => {
      ownerMustExist();
      if (r.access === "add") {
        w.write("const row: Input = ").inlineBlock(() => {
          w.writeLine(`${jsString(path.ownerColumn)}: data.id,`);
          w.writeLine(`${jsString(path.targetColumn)}: data[${jsString(path.targetColumn)}],`);
          const ends = [link.link!.fromField, link.link!.toField];
          for (const f of link.fields.filter((f) => f.isWritable && !ends.includes(f.name))) {
            w.writeLine(`${jsString(f.name)}: ${valueWithDefault(f)},`);
          }
        });
        w.write(";").newLine();
        w.writeLine("// Every ref must name an existing row: checked in the same transaction as the write.");
        w.writeLine(refCheckLine(catalog, link, link.fields.filter((f) => f.isWritable).map((f) => f.name), "row")!);
        w.writeLine(`return rt.link(tx, ${linkTable}, ${ends}, row);`);
      } else {
        w.writeLine(`await rt.checkRefs(tx, ${linkTable}, { ${jsString(path.targetColumn)}: data[${jsString(path.targetColumn)}] });`);
        w.writeLine(`return { removed: await rt.unlink(tx, ${linkTable}, ${ends}) };`);
      }
    });
    w.write(", call);").newLine();
  });
  return w.toString().trimEnd();
}

/**
 * The create value of a writable field: the input's, else its default, else null / []. A
 * `@readonly` field is never taken from the input (its schema refuses it anyway).
 */
function valueWithDefault(f: CatalogField): string {
  const given = f.isReadonly ? undefined : `data[${jsString(f.name)}]`;
  let fallback: string | undefined;
  if (f.default?.kind === "literal") fallback = jsJson(f.default.value);
  else if (f.default?.kind === "now") fallback = "rt.now()";
  else if (f.isOptional) fallback = "null";
  // A list nobody set is empty rather than absent, so every row has the same shape.
  else if (f.type.kind === "array") fallback = "[]";
  if (given === undefined) return fallback ?? "null";
  return fallback === undefined ? given : `${given} !== undefined ? ${given} : ${fallback}`;
}

function writeRefCheck(w: CodeBlockWriter, catalog: Catalog, type: CatalogType, source: string): void {
  const line = refCheckLine(catalog, type, type.fields.filter((f) => f.isWritable).map((f) => f.name), source);
  if (line === undefined) return;
  w.writeLine("// Every ref must name an existing row: checked in the same transaction as the write.");
  w.writeLine(line);
}

/** The class methods some body calls as `o.m()`: each is also emitted as a function taking tx. */
function calledMethods(catalog: Catalog): { type: CatalogType; method: CatalogMethod }[] {
  const bodies: [CatalogType | undefined, CatalogMethod][] = [
    ...catalog.types.flatMap((t) => t.methods.map((m): [CatalogType, CatalogMethod] => [t, m])),
    ...[...(catalog.functions ?? []), ...(catalog.main ? [catalog.main] : []), ...(catalog.tests ?? []).flatMap((t) => (t.fn ? [t.fn] : []))].map(
      (f): [undefined, CatalogMethod] => [undefined, f],
    ),
  ];
  const names = new Set<string>();
  for (const [owner, body] of bodies) {
    for (const [e, call] of typeMethod(catalog, owner, body, new DiagnosticBag()).methodCalls) names.add(`${call.type}.${e.method.text}`);
  }
  return catalog.types.flatMap((type) => type.methods.filter((m) => names.has(`${type.name}.${m.name}`)).map((method) => ({ type, method })));
}

/**
 * Every call of a fn or method from a body goes through `nested`: calls nest at most
 * `maxCallDepth` deep per transaction, so unbounded recursion ends the call (409) instead of
 * spinning forever on the event loop (each level only awaits the store, never yields to I/O).
 */
const maxCallDepth = 100;
const nestedCallHelper = [
  "const callDepth = new WeakMap<Tx, number>();",
  "async function nested<T>(tx: Tx, at: string, run: () => Promise<T>): Promise<T> {",
  "  const depth = (callDepth.get(tx) ?? 0) + 1;",
  `  if (depth > ${maxCallDepth}) rt.abort(\`calls nested more than ${maxCallDepth} deep at \${at}\`);`,
  "  callDepth.set(tx, depth);",
  "  try {",
  "    return await run();",
  "  } finally {",
  "    callDepth.set(tx, depth - 1);",
  "  }",
  "}",
];
