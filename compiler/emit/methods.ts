// The method emitter: one exposed class method → the text of one member of the object that
// `createOperations(rt)` returns (compiler/emit/operations.ts inserts it verbatim).
//
// Owns: the handler frame (one store transaction → load `self` → body → result; the runtime
// has validated the input and admitted the call before it runs)
// and statements, each preceded by a `// file.wo:LINE` comment so generated code maps back to
// its source. Expressions are printed by ./method-expr.ts; what every name and expression
// means comes from the method checker (check/methods.ts `typeMethod`), run again here on the
// already-checked catalog so the two can never disagree.
//
// A method that can write runs in `rt.store.write` (every write of the call commits together
// or not at all, and the call is answered after the commit), with or without `in txn`: every
// call is atomic anyway. A method that never writes runs in `rt.store.read`.

import { builtinFunctions } from "../builtins.js";
import { isInRow } from "../../model/app.js";
import { CodeBlockWriter } from "ts-morph";
import type { Block, Expr, InsertStmt, LinkStmt, NameExpr, SelectExpr, Stmt, UpdateStmt } from "../ast.js";
import type { Catalog, CatalogField, CatalogMethod, CatalogType, FieldType } from "../catalog.js";
import { blockHas, someExpression, writeStatements } from "./method-body.js";
import { typeMethod } from "../check/methods.js";
import { isSessionUser } from "../check/body/session.js";
import { fieldValueType, findType, isNullable, returnValueType } from "../check/method-types.js";
import { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { keyedLocks } from "./method-locks.js";
import { refCheckLine } from "./ref-checks.js";
import { jsComment, jsIdentifier, jsJson, jsString } from "./js-literal.js";
import {
  at,
  condition,
  fieldTsType,
  functionName,
  helpersLine,
  jsName,
  objectKey,
  omittedFieldValue,
  printExpr,
  prop,
  rowAlias,
  selectTargetQuery,
  tsType,
  rowId,
  typeOf,
  type ExprContext,
} from "./method-expr.js";

/** `name`: the operation's tool name, from the operations table. */
export function emitMethodHandler(catalog: Catalog, type: CatalogType, method: CatalogMethod, name: string): string {
  const typing = typeMethod(catalog, type, method, new DiagnosticBag());
  const ctx: ExprContext = {
    catalog,
    owner: type,
    typing,
    rowTypes: new Set([type.name]),
    helpers: new Set(),
    params: new Set(method.params.map((p) => p.name)),
  };

  // The body is written first so the row types and helpers it uses are known for the preamble.
  const body = writer();
  writeBody(body, ctx, method);

  const w = writer();
  w.write(`async ${jsIdentifier(name)}(input: unknown, call: CallContext)`).block(() => {
    const txn = method.txn ? ` in txn${method.txn === "default" ? "" : ` ${method.txn}`}` : "";
    const returns = method.returns
      ? ` -> ${method.returns.isArray ? `[${signatureName(method.returns.type)}]` : signatureName(method.returns.type)}`
      : "";
    const params = method.params.map((p) => `${p.name}: ${signatureName(p.type)}`).join(", ");
    w.writeLine(
      `// ${jsComment(`${method.source.file}:${method.source.line}: ${type.name}.${method.name}(${params})${returns}${txn}`)}`,
    );
    for (const t of [...ctx.rowTypes].sort()) writeRowType(w, catalog, t);
    const helpers = helpersLine(ctx.helpers);
    if (helpers) w.writeLine(helpers);
    const argType = [
      `id: number`,
      ...method.params.map((p) => `${objectKey(p.name)}: ${tsType(fieldValueType(catalog, p.type), ctx)}`),
    ];
    // The runtime validated the input against the tool's schema before the call (runtime/operations/bind.ts).
    w.writeLine(`const args = input as { ${argType.join("; ")} };`);
    for (const p of method.params) {
      const kw = typing.reassigned.has(p.name) ? "let" : "const";
      w.writeLine(`${kw} ${jsName(p.name)} = ${prop("args", p.name)};`);
    }
    // A method that never writes needs no writer slot: a read snapshot is as consistent. With
    // or without `in txn`, one that writes runs in one write transaction.
    const isWrite = blockHas(method.body, writeStatements, catalog);
    // The body runs under the run budget of a client's call (runtime/operations/run-budget.ts).
    const budgeted = `rt.budgeted("method", ${jsString(`Method ${type.name}.${method.name}`)}, call, async (tx, budget) => `;
    w.write(`return rt.store.${isWrite ? "write" : "read"}(${budgeted}`).inlineBlock(() => {
      const selfKw = typing.reassigned.has("self") ? "let" : "const";
      w.writeLine(
        `${selfKw} self = ((await tx.get(${jsString(type.table)}, args.id)) as ${rowAlias(type.name)} | undefined) ?? rt.notFound(${jsString(type.name)}, args.id);`,
      );
      w.write(body.toString());
    });
    // A write that reads by id only may run beside other writers, locking those rows first (./method-locks.ts).
    const locks = isWrite ? keyedLocks(catalog, type, method, typing) : undefined;
    const options = locks ? `{ ...call, byKey: { lockFirst: [${locks.join(", ")}] } }` : "call";
    w.write(isWrite ? `), ${options});` : "));").newLine();
  });
  return w.toString().trimEnd();
}

/** A signature type as the source wrote it: `Money`, `Price` (a ref parameter or a row result). */
function signatureName(t: FieldType): string {
  if (t.kind === "scalar") return t.scalar;
  if (t.kind === "ref") return t.target;
  if (t.kind === "embedded") return t.type;
  return t.kind;
}

/**
 * A free fn → `async function f_name(tx, budget, v_a, …)`, declared inside
 * `createOperations(rt)` so it sees `rt`; it runs in the transaction and under the run budget
 * its caller passes. `rowTypes` collects the row aliases its signature and body use (declared
 * beside it by the operations emitter).
 */
export function emitFunction(
  catalog: Catalog,
  fn: CatalogMethod,
  rowTypes: Set<string>,
  name = functionName(fn.name),
  owner?: CatalogType,
): string {
  const typing = typeMethod(catalog, owner, fn, new DiagnosticBag());
  const ctx: ExprContext = {
    catalog,
    owner,
    typing,
    rowTypes,
    helpers: new Set(),
    params: new Set(fn.params.map((p) => p.name)),
    isTest: fn.isTest === true,
  };
  const body = writer();
  writeBody(body, ctx, fn);
  const w = writer();
  const params = fn.params.map((p) => `${jsName(p.name)}: ${tsType(fieldValueType(catalog, p.type), ctx)}`);
  const returns = fn.returns ? `${tsType(returnValueType(catalog, fn.returns), ctx)} | null` : "null";
  const what = owner ? `${owner.name}.${fn.name}` : `${fn.isTest ? "test" : "fn"} ${fn.name}`;
  w.writeLine(`// ${jsComment(`${fn.source.file}:${fn.source.line}: ${what}`)}`);
  // A method called from a body (`o.m()`) takes its row's id and reads the row in the caller's transaction.
  if (owner) params.unshift("selfId: number");
  w.write(
    `async function ${name}(tx: Tx, budget: RunBudgetCounter${params.map((p) => `, ${p}`).join("")}): Promise<${returns}>`,
  ).block(() => {
    const helpers = helpersLine(ctx.helpers);
    if (helpers) w.writeLine(helpers);
    if (owner) {
      rowTypes.add(owner.name);
      const kw = typing.reassigned.has("self") ? "let" : "const";
      const missing = `rt.abort(${jsString(`${owner.name} `)} + selfId + ${jsString(`, which ${owner.name}.${fn.name}() was called on, does not exist`)})`;
      w.writeLine(
        `${kw} self = ((await tx.get(${jsString(owner.table)}, selfId)) as ${rowAlias(owner.name)} | undefined) ?? ${missing};`,
      );
    }
    w.write(body.toString());
  });
  return w.toString().trimEnd();
}

/** The row alias declarations for `types` (free fns share them at `createOperations` level). */
export function rowTypeDeclarations(catalog: Catalog, types: Set<string>): string {
  const w = writer();
  for (const t of [...types].sort()) writeRowType(w, catalog, t);
  return w.toString().trimEnd();
}

export function writer(): CodeBlockWriter {
  return new CodeBlockWriter({ newLine: "\n", indentNumberOfSpaces: 2, useTabs: false, useSingleQuote: false });
}

/** `type PriceRow = { id: number; amount: number; … };` — the row as the store returns it. */
function writeRowType(w: CodeBlockWriter, catalog: Catalog, typeName: string): void {
  const t = findType(catalog, typeName);
  // Evaluated computed fields too: every read gives them (runtime/operations/row-exprs.ts).
  const fields = (t?.fields ?? []).filter(isInRow);
  const members = fields.map((f) => `${objectKey(f.name)}: ${fieldTsType(catalog, f.type, f.isOptional)}`);
  w.writeLine(`type ${rowAlias(typeName)} = { ${members.join("; ")} };`);
}

function writeBody(w: CodeBlockWriter, ctx: ExprContext, method: CatalogMethod): void {
  // Bindings made inside an `if`, or made twice, live in the method's one flat scope: they are
  // declared up front, the way the reference runtime resolves them.
  for (const [name, info] of ctx.typing.lets) {
    if (isHoisted(ctx, name)) w.writeLine(`let ${jsName(name)}!: ${tsType(info.type, ctx)};`);
  }
  writeBlock(w, ctx, method.body);
  const last = method.body.statements[method.body.statements.length - 1];
  if (last?.kind !== "ReturnStmt") w.writeLine("return null;");
}

function isHoisted(ctx: ExprContext, name: string): boolean {
  const info = ctx.typing.lets.get(name);
  if (!info) return false;
  if (isParamName(ctx, name)) return false; // a parameter's local is already a `let`
  return info.count > 1 || !info.isTopLevelOnly || ctx.typing.reassigned.has(name);
}

function writeBlock(w: CodeBlockWriter, ctx: ExprContext, b: Block): void {
  for (const s of b.statements) writeStmt(w, ctx, s);
}

function line(s: { span: { file: string; line: number } }): string {
  return `// ${jsComment(`${s.span.file}:${s.span.line}`)}`;
}

export function writeStmt(w: CodeBlockWriter, ctx: ExprContext, s: Stmt): void {
  if (s.kind !== "IfStmt") w.writeLine(line(s));
  switch (s.kind) {
    case "LetStmt": {
      const name = jsName(s.name.text);
      const value = s.value.kind === "InsertStmt" ? insertExpr(ctx, s.value) : printExpr(ctx, s.value);
      const isDeclaredElsewhere = isHoisted(ctx, s.name.text) || isParamName(ctx, s.name.text);
      w.writeLine(isDeclaredElsewhere ? `${name} = ${value};` : `const ${name} = ${value};`);
      return;
    }
    case "InsertStmt":
      writeInsert(w, ctx, s);
      return;
    case "ForStmt": {
      // The loop variable is declared up front with the other flat-scope bindings (writeBody).
      const name = jsName(s.variable.text);
      w.write(`for (${name} of ${printExpr(ctx, s.iterable)})`).block(() => {
        writeStep(w);
        writeBlock(w, ctx, s.body);
      });
      return;
    }
    case "ExprStmt":
      w.writeLine(`${printExpr(ctx, s.expr)};`);
      return;
    case "ExpectAbortStmt": {
      // Tests only (the checker refuses it elsewhere). The block's writes are undone when it
      // aborts; the test goes on. Not aborting, or aborting with another message, fails it.
      const where = `${s.span.file}:${s.span.line}`;
      w.write("").block(() => {
        w.writeLine("let aborted: string | undefined;");
        // `} catch` on one line: the writer's block() ends its line after the brace.
        w.writeLine("try {");
        w.indent(() => {
          w.write("await tx.savepoint(async () => ").inlineBlock(() => writeBlock(w, ctx, s.body));
          w.write(");").newLine();
        });
        // A run ended by its budget or its caller is not an abort the test can expect.
        ctx.helpers.add("abortMessage");
        w.write("} catch (err)").block(() => w.writeLine("aborted = abortMessage(err);"));
        w.writeLine(
          `if (aborted === undefined) rt.abort(${jsString(`expect_abort at ${where}: the block did not abort`)});`,
        );
        if (s.message) {
          const want = jsString(s.message.value);
          w.writeLine(
            `if (!aborted.includes(${want})) rt.abort(${jsString(`expect_abort at ${where}: the block aborted with `)} + JSON.stringify(aborted) + ${jsString(`, which does not contain ${JSON.stringify(s.message.value)}`)});`,
          );
        }
      });
      return;
    }
    case "AsSessionStmt": {
      // Tests only (the checker refuses it elsewhere): the block runs with that caller as
      // `$session`, the principal every policy check of the runtime reads (spec/policies.md).
      const value = (key: string) => {
        const entry = s.principal?.entries.find((x) => x.name.text === key);
        return entry ? printExpr(ctx, entry.value) : "null";
      };
      // `as session anonymous`: no credentials; `as session $a`: the row `a` signed in, its
      // `role` field (when it has one) the role.
      const row = s.row ? printExpr(ctx, s.row) : undefined;
      const who = row
        ? `{ user: ${row}.id, role: typeof ${row}.role === "string" ? ${row}.role : null }`
        : s.identity?.text === "anonymous"
          ? "{ user: null, role: null, anonymous: true }"
          : `{ user: ${value("user")}, role: ${value("role")} }`;
      w.write(`await rt.asSession(${who}, async () => `).inlineBlock(() => writeBlock(w, ctx, s.body));
      w.write(");").newLine();
      return;
    }
    case "AssignStmt": {
      const compound = ctx.typing.compound.get(s);
      w.writeLine(`${printExpr(ctx, s.target)} = ${printExpr(ctx, compound ?? s.value)};`);
      return;
    }
    case "ReturnStmt":
      w.writeLine(s.value ? `return ${printExpr(ctx, s.value)};` : "return null;");
      return;
    case "AssertStmt": {
      // In a test, `otherwise abort …` says where too, as a failed assert does.
      const where =
        ctx.isTest && (s.abortExpr || s.abortMessage)
          ? `${jsString(`abort at ${s.span.file}:${s.span.line}: `)} + `
          : "";
      const message = s.abortExpr
        ? `${where}${printExpr(ctx, s.abortExpr)}`
        : s.abortMessage
          ? `${where}${jsString(s.abortMessage.value)}`
          : ctx.isTest
            ? failedAssert(ctx, s)
            : jsString("assertion failed");
      w.writeLine(`if (!${condition(ctx, s.condition, 7)}) rt.abort(${message});`);
      return;
    }
    case "IfStmt":
      writeIf(w, ctx, s);
      return;
    case "UpdateStmt":
      writeUpdate(w, ctx, s);
      return;
    case "DeleteStmt":
      writeDelete(w, ctx, s.target);
      return;
    case "LinkStmt":
      writeLink(w, ctx, s);
      return;
  }
}

/**
 * Each iteration of a loop is a step of the run's budget: a countdown, and every thousand
 * steps a look at the clock that may let other callers run (runtime/operations/run-budget.ts).
 */
function writeStep(w: CodeBlockWriter): void {
  w.writeLine("if (--budget.left <= 0) await budget.check();");
}

function isParamName(ctx: ExprContext, name: string): boolean {
  return ctx.params.has(name);
}

function writeIf(w: CodeBlockWriter, ctx: ExprContext, s: Extract<Stmt, { kind: "IfStmt" }>): void {
  w.writeLine(line(s));
  w.write(`if (${condition(ctx, s.condition, 0)})`).block(() => writeBlock(w, ctx, s.then));
  let rest = s.else;
  while (rest) {
    if (rest.kind === "Block") {
      const b = rest;
      w.write("else").block(() => writeBlock(w, ctx, b));
      return;
    }
    const elif = rest;
    w.write(`else if (${condition(ctx, elif.condition, 0)})`).block(() => writeBlock(w, ctx, elif.then));
    rest = elif.else;
  }
}

/**
 * Field → `/param` for each field written straight from a parameter the body never rebinds.
 * Only a method's parameters are the caller's input; a free fn's come from its caller's code.
 */
function argumentPointers(ctx: ExprContext, writes: [string, Expr][]): Record<string, string> {
  const out: Record<string, string> = {};
  if (ctx.owner === undefined) return out;
  for (const [field, value] of writes) {
    if (value.kind === "NameExpr" && ctx.params.has(value.name.text) && !ctx.typing.reassigned.has(value.name.text))
      out[field] = `/${value.name.text}`;
  }
  return out;
}

/** The stored value for one field: a Text value going into a union field is checked. */
export function storedValue(ctx: ExprContext, field: CatalogField, value: Expr): string {
  // Into a Text field `$session.user` is the user's text, not an id (compiler/check/body/session.ts).
  if (isSessionUser(value) && field.type.kind === "scalar" && field.type.scalar === "Text") return "rt.session().user";
  const code = printExpr(ctx, value);
  const t = typeOf(ctx, value);
  // A row stored into a `ref T` field is its id (compiler/check/body/writes.ts checkStore).
  if (ctx.typing.rowIds.has(value)) return rowId(ctx, value, field.isOptional);
  if (field.type.kind === "union" && t.k === "text" && value.kind !== "LiteralExpr") {
    ctx.helpers.add("variant");
    return `variant(${code}, ${jsJson(field.type.variants)}, ${jsString(field.name)}, ${at(value)})`;
  }
  return code;
}

/**
 * A failed `assert` in a test: where, and for a comparison both sides' values. The sides are
 * read again for the message, so this is done only when they call no fn (reads are repeatable).
 */
function failedAssert(ctx: ExprContext, s: Extract<Stmt, { kind: "AssertStmt" }>): string {
  const where = `assert failed at ${s.span.file}:${s.span.line}`;
  const c = s.condition;
  const comparison = c.kind === "BinaryExpr" && ["==", "!=", "<", "<=", ">", ">="].includes(c.op) ? c : undefined;
  if (!comparison || callsFunction(comparison)) return jsString(where);
  ctx.helpers.add("text");
  return `${jsString(`${where}: `)} + text(${printExpr(ctx, comparison.left)}) + ${jsString(` ${comparison.op} `)} + text(${printExpr(ctx, comparison.right)}) + ${jsString(" is false")}`;
}

/**
 * Whether evaluating `e` again could do more than read: a fn call, `print`, a method called on a
 * row, or `receive` (it takes a delta) and `subscribe live`.
 */
function callsFunction(e: Expr): boolean {
  return someExpression(
    e,
    (x) =>
      x.kind === "MethodCallExpr" ||
      x.kind === "LiveExpr" ||
      (x.kind === "CallExpr" &&
        (!builtinFunctions.has(x.callee.text) || x.callee.text === "print" || x.callee.text === "receive")),
  );
}

/** The row an insert stores: the given values, else the defaults of the create operation. */
function insertRow(ctx: ExprContext, s: InsertStmt): { target: CatalogType; row: string; check: string | undefined } {
  const target = findType(ctx.catalog, s.type.text)!;
  const given = new Map(s.entries.map((e) => [e.name.text, e.value]));
  // Same defaults as the create operation: the default, else null when optional, else [].
  const members: string[] = [];
  for (const f of target.fields.filter((f) => f.isWritable)) {
    const value = given.get(f.name);
    const code = value ? storedValue(ctx, f, value) : omittedFieldValue(f);
    if (code !== undefined) members.push(`${objectKey(f.name)}: ${code}`);
  }
  const pointers = argumentPointers(
    ctx,
    s.entries.map((e) => [e.name.text, e.value]),
  );
  return {
    target,
    row: `{ ${members.join(", ")} }`,
    check: refCheckLine(ctx.catalog, target, [...given.keys()], "row", pointers),
  };
}

function writeInsert(w: CodeBlockWriter, ctx: ExprContext, s: InsertStmt): void {
  const { target, row, check } = insertRow(ctx, s);
  const table = jsString(target.table);
  if (check === undefined) {
    w.writeLine(`await tx.insert(${table}, ${row});`);
    return;
  }
  w.block(() => {
    w.writeLine(`const row = ${row};`);
    w.writeLine(check);
    w.writeLine(`await tx.insert(${table}, row);`);
  });
}

/** An insert as an expression whose value is the new row (`let o = insert …` binds it). */
function insertExpr(ctx: ExprContext, s: InsertStmt): string {
  const { target, row, check } = insertRow(ctx, s);
  const table = jsString(target.table);
  ctx.rowTypes.add(target.name);
  const stored = `(await tx.insert(${table}, ${check === undefined ? row : "row"})) as ${rowAlias(target.name)}`;
  if (check === undefined) return `(${stored})`;
  return `(await (async () => { const row = ${row}; ${check} return ${stored}; })())`;
}

/**
 * `link a -[E { … }]-> b` adds the pair's link (the same rule as the relation operations:
 * an existing link stays as it is); `unlink` removes it if there is one. Either end may be a
 * row (its id is used) or an id.
 */
function writeLink(w: CodeBlockWriter, ctx: ExprContext, s: LinkStmt): void {
  const target = findType(ctx.catalog, ctx.typing.linkTypes.get(s)!)!;
  const { fromField, toField } = target.link!;
  const endId = (e: Expr, end: string) => {
    const t = typeOf(ctx, e);
    if (t.k !== "row") return printExpr(ctx, e);
    if (!isNullable(t)) return `(${printExpr(ctx, e)}).id`;
    ctx.helpers.add("present");
    return `present(${printExpr(ctx, e)}, ${jsString(`the ${end} of '${s.remove ? "unlink" : "link"}'`)}, ${at(e)}).id`;
  };
  const ends = `{ ${objectKey(fromField)}: ${endId(s.from, "source")}, ${objectKey(toField)}: ${endId(s.to, "target")} }`;
  const table = jsString(target.table);
  if (s.remove) {
    w.writeLine(`await rt.unlink(tx, ${table}, ${ends});`);
    return;
  }
  const given = new Map(s.entries.map((e) => [e.name.text, e.value]));
  const members: string[] = [];
  for (const f of target.fields.filter((f) => f.isWritable && f.name !== fromField && f.name !== toField)) {
    const value = given.get(f.name);
    const code = value ? storedValue(ctx, f, value) : omittedFieldValue(f);
    if (code !== undefined) members.push(`${objectKey(f.name)}: ${code}`);
  }
  w.block(() => {
    w.writeLine(`const ends = ${ends};`);
    w.writeLine(`const row = { ${["...ends", ...members].join(", ")} };`);
    // Both ends (and any ref among the link's own fields) must name existing rows.
    const pointers = argumentPointers(ctx, [
      [fromField, s.from],
      [toField, s.to],
      ...s.entries.map((e): [string, Expr] => [e.name.text, e.value]),
    ]);
    w.writeLine(refCheckLine(ctx.catalog, target, [fromField, toField, ...given.keys()], "row", pointers)!);
    w.writeLine(`await rt.link(tx, ${table}, ends, row);`);
  });
}

function writeUpdate(w: CodeBlockWriter, ctx: ExprContext, s: UpdateStmt): void {
  const targetType = targetRowType(ctx, s.target);
  const target = findType(ctx.catalog, targetType.type)!;
  // `f += e` and `set a.b = e` read the row being written (`row`), so their patch is per row.
  const perRow = s.assignments.some((a) => ctx.typing.rowUpdates.has(a));
  // Several paths into one struct (`set m.a = x, m.b = y`) apply in turn to the one field.
  const values = new Map<string, string>();
  for (const a of s.assignments) {
    const f = target.fields.find((x) => x.name === a.field.text)!;
    const upd = ctx.typing.rowUpdates.get(a);
    if (!upd || upd.path.length === 0) {
      values.set(a.field.text, storedValue(ctx, upd?.field ?? f, upd?.value ?? a.value));
      continue;
    }
    ctx.helpers.add("withField");
    const current = values.get(a.field.text) ?? `row[${jsString(a.field.text)}]`;
    const value = storedValue(ctx, upd.field, upd.value);
    values.set(
      a.field.text,
      `withField(${current}, ${jsJson(upd.path)}, ${value}, ${jsString(a.field.text)}, ${at(a.value)})`,
    );
  }
  const members = [...values].map(([name, code]) => `${objectKey(name)}: ${code}`);
  const check = refCheckLine(
    ctx.catalog,
    target,
    s.assignments.map((a) => a.field.text),
    "patch",
    argumentPointers(
      ctx,
      s.assignments.map((a) => [a.field.text, a.value]),
    ),
  );
  const table = jsString(target.table);
  const typeName = jsString(target.name);
  if (s.target.kind === "NameExpr" && !targetType.isSet) requireRow(w, ctx, s.target);
  const refreshed = (v: string, patch: string) =>
    `${v} = ((await tx.update(${table}, ${v}.id, ${patch})) as ${rowAlias(target.name)} | undefined) ?? rt.notFound(${typeName}, ${v}.id);`;
  if (s.target.kind === "NameExpr" && !targetType.isSet && check === undefined && !perRow) {
    // The name now holds the row as written, so later reads in this call see the update.
    w.writeLine(refreshed(printExpr(ctx, s.target), `{ ${members.join(", ")} }`));
    return;
  }
  const patchLines = () => {
    w.writeLine(`const patch = { ${members.join(", ")} };`);
    if (check !== undefined) w.writeLine(check);
  };
  w.block(() => {
    if (!perRow) patchLines();
    if (s.target.kind === "SelectExpr") {
      w.write(`for (const row of await tx.list(${selectTargetQuery(ctx, s.target)}))`).block(() => {
        writeStep(w);
        if (perRow) patchLines();
        w.writeLine(`await tx.update(${table}, row.id as number, patch);`);
      });
    } else if (targetType.isSet) {
      w.write(`for (const row of ${printExpr(ctx, s.target)})`).block(() => {
        writeStep(w);
        if (perRow) patchLines();
        w.writeLine(`await tx.update(${table}, row.id, patch);`);
      });
    } else {
      if (perRow) {
        w.writeLine(`const row = ${printExpr(ctx, s.target)};`);
        patchLines();
      }
      w.writeLine(refreshed(printExpr(ctx, s.target), "patch"));
    }
  });
}

function writeDelete(w: CodeBlockWriter, ctx: ExprContext, targetExpr: SelectExpr | NameExpr): void {
  const targetType = targetRowType(ctx, targetExpr);
  const target = findType(ctx.catalog, targetType.type)!;
  const table = jsString(target.table);
  const one = (id: string) => {
    // A row other rows still reference is not deleted (the call ends with a conflict).
    w.writeLine(`await rt.checkNotReferenced(tx, ${table}, ${id});`);
    w.writeLine(`await tx.delete(${table}, ${id});`);
  };
  const each = (id: string) => {
    writeStep(w);
    one(id);
  };
  if (targetExpr.kind === "SelectExpr") {
    w.write(`for (const row of await tx.list(${selectTargetQuery(ctx, targetExpr)}))`).block(() =>
      each("row.id as number"),
    );
  } else if (targetType.isSet) {
    w.write(`for (const row of ${printExpr(ctx, targetExpr)})`).block(() => each("row.id"));
  } else {
    requireRow(w, ctx, targetExpr);
    one(`${printExpr(ctx, targetExpr)}.id`);
  }
}

/** `update x …` / `delete x` of a name that may hold no row (`let x = T{ id == i }`): none ends the call. */
function requireRow(w: CodeBlockWriter, ctx: ExprContext, e: NameExpr): void {
  if (!isNullable(typeOf(ctx, e))) return;
  ctx.helpers.add("present");
  w.writeLine(`present(${printExpr(ctx, e)}, ${jsString(e.name.text)}, ${at(e)});`);
}

function targetRowType(ctx: ExprContext, e: SelectExpr | NameExpr): { type: string; isSet: boolean } {
  const t = typeOf(ctx, e);
  if (t.k === "row") return { type: t.type, isSet: false };
  if (t.k === "rows") return { type: t.type, isSet: true };
  // Unreachable for a checked catalog (WO5019).
  throw new Error(`update/delete target of type ${t.k} in a checked method`);
}
