// Class methods → CatalogMethod: signatures only.
//
// Owns: which `fn` members are methods (those of a `class`; a `fn` in a plain `type` is a
// warning and no method), duplicate method names, names that clash with built-in operations,
// parameters (no `id`, no duplicates, known type names) and return types.
// Leaves the bodies to compiler/check/methods.ts (method language), called from program.ts.
//
// Type names in signatures: a scalar maps to that scalar; a declared type as a parameter is
// a `ref` (callers pass a row id), as a return type an `embedded` row.

import type { FnDecl, Name, TypeDecl } from "../ast.js";
import { crudOps, restOnlyOps, type CatalogMethod, type FieldType } from "../catalog.js";
import { type CheckContext, locationOf } from "./context.js";
import { isScalarName } from "../../model/scalars.js";
import { requireType } from "./fields.js";

const builtinOps = new Set<string>([...crudOps, ...restOnlyOps]);

export function buildMethods(decl: TypeDecl, ctx: CheckContext): CatalogMethod[] {
  const fns = decl.members.filter((m): m is FnDecl => m.kind === "FnDecl");
  if (decl.keyword !== "class") {
    for (const fn of fns) ctx.bag.report("WO2103", fn.name.span, { name: fn.name.text, type: decl.name.text });
    return [];
  }
  const methods: CatalogMethod[] = [];
  const seen = new Set<string>();
  for (const fn of fns) {
    const name = fn.name.text;
    if (seen.has(name)) {
      ctx.bag.report("WO2020", fn.name.span, { name, type: decl.name.text });
      continue;
    }
    seen.add(name);
    if (builtinOps.has(name)) ctx.bag.report("WO3008", fn.name.span, { name });
    methods.push(buildMethod(fn, ctx));
  }
  return methods;
}

/** A signature (params, return type, txn) as a CatalogMethod; free `fn`s use it too. */
export function buildMethod(fn: FnDecl, ctx: CheckContext): CatalogMethod {
  const params: CatalogMethod["params"] = [];
  const seen = new Set<string>();
  for (const p of fn.params) {
    if (p.name.text === "id") ctx.bag.report("WO3006", p.name.span, {});
    else if (seen.has(p.name.text)) ctx.bag.report("WO2021", p.name.span, { name: p.name.text, method: fn.name.text });
    seen.add(p.name.text);
    params.push({
      name: p.name.text,
      type: signatureType(p.type, "param", ctx),
      ...(p.doc ? { doc: p.doc } : {}),
      source: locationOf(p.name.span),
    });
  }
  const method: CatalogMethod = { name: fn.name.text, params, body: fn.body, source: locationOf(fn.name.span) };
  if (fn.returnType) {
    method.returns = { type: signatureType(fn.returnType.name, "return", ctx), isArray: fn.returnType.isArray };
  }
  if (fn.txn) method.txn = fn.txn.mode;
  if (fn.doc) method.doc = fn.doc;
  return method;
}

function signatureType(name: Name, role: "param" | "return", ctx: CheckContext): FieldType {
  if (isScalarName(name.text)) return { kind: "scalar", scalar: name.text };
  requireType(name.text, name.span, ctx, true);
  return role === "param" ? { kind: "ref", target: name.text } : { kind: "embedded", type: name.text };
}
