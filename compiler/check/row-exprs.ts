// Row expressions (spec/language.md, "Checks", "Computed fields"): a field's boolean
// `@check(<expr>)` and a computed field's `name: T = <expr>` → CatalogRowExpr, typed by the
// method checker as one small body of the type, so the expression means exactly what it would
// in a method and its mistakes are reported the same way (WO5xxx at file:line:col):
//   let value = self.<field>   -- a check only, when the text names `value`
//   let <f> = self.<f>         -- each field of the row the text names bare (`first + " " + last`)
//   return <expr>              -- Bool for a check, the field's type for a computed field
// A computed field is then evaluated on every read (runtime/operations/row-exprs.ts), or kept
// in its column when `@materialized`; a check runs on every create and update.

import type { Block, Expr, FieldDecl, LetStmt, NameExpr, Stmt, TypeDecl } from "../ast.js";
import type { Catalog, CatalogField, CatalogMethod, CatalogRowExpr, CatalogType } from "../catalog.js";
import { builtinFunctions } from "../builtins.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { DiagnosticBag as Bag } from "../diagnostics/diagnostic.js";
import { locationOf } from "./context.js";
import type { SkippedFunctions } from "./functions.js";
import { typeMethod } from "./methods.js";

const boolType = { kind: "scalar", scalar: "Bool" } as const;

/** The method checker's errors that say wo's method language lacks something the text uses. */
const lackingInWo: ReadonlySet<string> = new Set(["WO5004", "WO5013", "WO5025"]);

/**
 * Types every row expression of `decls` (one per catalog type, by name) and records the ones
 * that type-check on their type (`rowExprs`, and `isEvaluated` on computed fields). Call before
 * the method bodies are typed: they may read the computed fields.
 */
export function checkRowExprs(
  decls: Iterable<TypeDecl>,
  catalog: Catalog,
  bag: DiagnosticBag,
  skipped: SkippedFunctions,
  /** The program's free fns by name: a row expression may not call one (WO2073). */
  fnNames: ReadonlySet<string>,
): void {
  const byName = new Map(catalog.types.map((t) => [t.name, t as CatalogType]));
  for (const decl of decls) {
    const type = byName.get(decl.name.text);
    if (!type) continue;
    const out: CatalogRowExpr<Block>[] = [];
    // Computed fields first, each after the computed fields it reads; then the checks.
    for (const { m, field, expr } of inReadingOrder(type, decl, bag)) {
      const built = rowExpr(catalog, type, field, m, "computed", expr, bag, skipped, fnNames);
      if (built && field.default?.kind === "computed") {
        out.push(built);
        field.default.isEvaluated = true;
      }
    }
    for (const m of decl.members) {
      if (m.kind !== "FieldDecl") continue;
      const field = type.fields.find((f) => f.name === m.name.text);
      if (!field) continue;
      for (const a of m.annotations) {
        if (a.name.text !== "check" || !a.expr) continue;
        const built = rowExpr(catalog, type, field, m, "check", a.expr, bag, skipped, fnNames);
        if (built) {
          out.push(built);
          field.checkExpr = a.argsText!.trim();
        }
      }
    }
    if (out.length > 0) type.rowExprs = out;
  }
}

function rowExpr(
  catalog: Catalog,
  type: CatalogType,
  field: CatalogField,
  decl: FieldDecl,
  kind: "check" | "computed",
  expr: Expr,
  bag: DiagnosticBag,
  skipped: SkippedFunctions,
  fnNames: ReadonlySet<string>,
): CatalogRowExpr<Block> | undefined {
  const own = new Bag();
  // A call of the program's own fn or a method may write: refused. A function neither wo nor
  // the program has (`syllables(body)`) is the method checker's to name below.
  for (const call of calls(expr))
    if (fnNames.has(call.name) || call.name.endsWith("()"))
      own.report("WO2073", call.span, { field: field.name, name: call.name });
  const fieldNames = new Set(type.fields.map((f) => f.name));
  const named = new Map<string, NameExpr>();
  for (const n of names(expr)) {
    if (n.name.text === "self" || named.has(n.name.text)) continue;
    if (fieldNames.has(n.name.text) || (kind === "check" && n.name.text === "value")) named.set(n.name.text, n);
  }
  const at = expr.span;
  const statements: Stmt[] = [];
  for (const [name, n] of named) {
    const member = name === "value" && !fieldNames.has("value") ? field.name : name;
    statements.push(selfField(name, member, n.span));
  }
  statements.push({ kind: "ReturnStmt", value: expr, span: at });
  const body: Block = { kind: "Block", statements, span: at };
  const method = rowExprMethod(field, kind, body, decl);
  const typing = typeMethod(catalog, type, method, own, skipped);
  const dependsOn: { table: string; column: string }[] = [];
  if (kind === "computed" && field.default?.kind === "computed" && field.default.isMaterialized) {
    for (const [e, rel] of typing.relations) {
      if (rel.link)
        own.report("WO2071", e.member.span, {
          field: field.name,
          what: `'${e.member.text}', a relation through link rows`,
        });
      else if (!dependsOn.some((d) => d.table === rel.table && d.column === rel.column))
        dependsOn.push({ table: rel.table, column: rel.column });
    }
    for (const e of typing.refReads.keys())
      own.report("WO2071", e.member.span, {
        field: field.name,
        what: `'${e.member.text}' through a ref to another row`,
      });
    for (const e of selects(expr)) own.report("WO2071", e.span, { field: field.name, what: "a select over a table" });
  }
  // An expression that reads but uses what wo's method language lacks — a function neither wo
  // nor the program has (`syllables(body)`), a select form it does not take, a
  // construct no body runs — stays what the language's reference makes of every computed
  // default, inert text, with a warning that says why: a program written for the full language
  // still checks (spec/language.md, "Computed fields"). Every other mistake is an error.
  // (A call of the program's own fn is WO2073 first: its name is unknown to the checker here.)
  const refused = own.items.some((d) => d.severity === "error" && d.code.startsWith("WO20"));
  const lacking = refused ? undefined : own.items.find((d) => lackingInWo.has(d.code));
  if (lacking) {
    const why = `wo cannot evaluate it: ${lacking.message.replace(/\.$/, "")} at ${lacking.span.line}:${lacking.span.col}`;
    if (kind === "computed") bag.report("WO2107", expr.span, { field: field.name, why });
    else bag.report("WO2108", expr.span, { name: `check(…) on '${field.name}': ${why}` });
    return undefined;
  }
  for (const d of own.items) if (!refused || d.code !== "WO5004") bag.items.push(d);
  if (own.items.some((d) => d.severity === "error")) return undefined;
  return {
    kind,
    field: field.name,
    text: kind === "check" ? (decl.annotations.find((a) => a.expr === expr)?.argsText ?? "").trim() : textOf(decl),
    ...(dependsOn.length > 0 ? { dependsOn } : {}),
    body,
    source: locationOf(expr.span),
  };
}

interface ComputedMember {
  m: FieldDecl;
  field: CatalogField;
  expr: Expr;
}

/**
 * The type's computed fields that the grammar read, each after the computed fields it reads
 * (bare or through `self`), field order otherwise: the order the runtime evaluates them in. A
 * field that reads itself, directly or through others, is WO2072 at the read that closes the
 * cycle, and no field of the cycle is evaluated.
 */
function inReadingOrder(type: CatalogType, decl: TypeDecl, bag: DiagnosticBag): ComputedMember[] {
  const members = new Map<string, ComputedMember>();
  for (const m of decl.members) {
    if (m.kind !== "FieldDecl" || m.default?.kind !== "ComputedDefault" || !m.default.expr) continue;
    const field = type.fields.find((f) => f.name === m.name.text);
    if (field?.default?.kind === "computed") members.set(field.name, { m, field, expr: m.default.expr });
  }
  const fieldNames = new Set(type.fields.map((f) => f.name));
  const readsOf = (c: ComputedMember) => {
    const bare = new Map<string, NameExpr>();
    for (const n of names(c.expr)) if (fieldNames.has(n.name.text) && !bare.has(n.name.text)) bare.set(n.name.text, n);
    return fieldReads(c.expr, bare).filter((r) => members.has(r.name));
  };
  const ordered: ComputedMember[] = [];
  const state = new Map<string, "visiting" | "done" | "cyclic">();
  const visit = (c: ComputedMember, path: string[]): boolean => {
    const now = state.get(c.field.name);
    if (now === "done") return true;
    if (now === "cyclic") return false;
    state.set(c.field.name, "visiting");
    let ok = true;
    for (const read of readsOf(c)) {
      const other = members.get(read.name)!;
      if (state.get(other.field.name) === "visiting") {
        const from = other === c ? [] : path.slice(path.indexOf(other.field.name));
        const cycle = [...from, c.field.name, other.field.name];
        bag.report("WO2072", read.span, { field: c.field.name, other: other.field.name, cycle: cycle.join(" → ") });
        ok = false;
      } else if (!visit(other, [...path, c.field.name])) ok = false;
    }
    state.set(c.field.name, ok ? "done" : "cyclic");
    if (ok) ordered.push(c);
    return ok;
  };
  for (const c of members.values()) visit(c, []);
  return ordered;
}

function textOf(decl: FieldDecl): string {
  return decl.default?.kind === "ComputedDefault" ? decl.default.text : "";
}

/** The row expression as the method checker and emitter take a body: a method of its type without parameters. */
export function rowExprMethod(
  field: CatalogField,
  kind: "check" | "computed",
  body: Block,
  decl?: FieldDecl,
): CatalogMethod {
  return {
    name: kind === "check" ? `(@check of ${field.name})` : `(computed ${field.name})`,
    params: [],
    returns: { type: kind === "check" ? boolType : field.type, isArray: false },
    body,
    source: decl ? locationOf(decl.name.span) : field.source,
  };
}

/** `let <name> = self.<member>` at the name's first use. */
function selfField(name: string, member: string, span: Expr["span"]): LetStmt {
  const self: Expr = { kind: "NameExpr", name: { text: "self", span }, span };
  return {
    kind: "LetStmt",
    name: { text: name, span },
    value: { kind: "MemberExpr", object: self, member: { text: member, span }, span },
    span,
  };
}

/** Every node of `e` (expressions and their parts), depth first. */
function nodes(e: Expr): Expr[] {
  const out: Expr[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    const kind = (node as { kind?: unknown }).kind;
    if (typeof kind === "string" && kind.endsWith("Expr")) out.push(node as Expr);
    for (const [key, value] of Object.entries(node)) if (key !== "span" && typeof value === "object") visit(value);
  };
  visit(e);
  return out;
}

function names(e: Expr): NameExpr[] {
  return nodes(e).filter((x): x is NameExpr => x.kind === "NameExpr");
}

function selects(e: Expr): Expr[] {
  return nodes(e).filter((x) => x.kind === "SelectExpr");
}

/** Calls of anything but a built-in: free fns and methods may write. */
function calls(e: Expr): { name: string; span: Expr["span"] }[] {
  const out: { name: string; span: Expr["span"] }[] = [];
  for (const x of nodes(e)) {
    if (x.kind === "CallExpr" && !builtinFunctions.has(x.callee.text))
      out.push({ name: x.callee.text, span: x.callee.span });
    if (x.kind === "MethodCallExpr") out.push({ name: `${x.method.text}()`, span: x.method.span });
  }
  return out;
}

/** The row's fields `e` reads: `self.f`, and each bare name that became `let f = self.f`. */
function fieldReads(e: Expr, named: Map<string, NameExpr>): { name: string; span: Expr["span"] }[] {
  const out: { name: string; span: Expr["span"] }[] = [];
  for (const x of nodes(e)) {
    if (x.kind === "MemberExpr" && x.object.kind === "NameExpr" && x.object.name.text === "self")
      out.push({ name: x.member.text, span: x.member.span });
    else if (x.kind === "NameExpr" && named.has(x.name.text) && x.name.text !== "value")
      out.push({ name: x.name.text, span: x.span });
  }
  return out;
}
