// Names across files: declaring types, and checking that relations resolve and point back.
//
// Owns: the program-wide type table (type names are global; the first declaration in file
// order wins, a later one is a duplicate), link-type endpoints, `backlink T.f` pointing back,
// `multi T via L` naming a link type between the right types, `multi T` resolvability, and
// by-value containment cycles. Leaves mapping each field to fields.ts (which reports unknown
// type names) — this pass runs after it and only looks at names that did resolve.

import type { FieldDecl, SourceFileAst, TypeDecl, TypeExpr } from "../ast.js";
import type { CatalogField, CatalogType, FieldType } from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import type { CheckContext } from "./context.js";
import { didYouMean } from "./did-you-mean.js";
import { requireType } from "./fields.js";

/** Every TypeDecl in file order then source order; duplicates reported and left out. */
export function declareTypes(files: SourceFileAst[], bag: DiagnosticBag): Map<string, TypeDecl> {
  const types = new Map<string, TypeDecl>();
  for (const file of files) {
    for (const item of file.items) {
      if (item.kind !== "TypeDecl") continue;
      const first = types.get(item.name.text);
      if (first) {
        const at = `${first.name.span.file}:${first.name.span.line}:${first.name.span.col}`;
        bag.report("WO2002", item.name.span, { name: item.name.text, first: at });
        continue;
      }
      types.set(item.name.text, item);
    }
  }
  return types;
}

/** `type L link A -> B`: both endpoints exist, and neither is L itself. */
export function checkLinkEndpoints(decl: TypeDecl, ctx: CheckContext): void {
  if (!decl.link) return;
  for (const end of [decl.link.from, decl.link.to]) {
    if (end.text === decl.name.text) ctx.bag.report("WO2023", end.span, { name: decl.name.text });
    else requireType(end.text, end.span, ctx);
  }
}

/** Relations of one type, checked against the declarations of the types they name. */
export function checkRelations(decl: TypeDecl, ctx: CheckContext): void {
  const self = decl.name.text;
  for (const member of decl.members) {
    if (member.kind !== "FieldDecl") continue;
    const t = member.type;
    if (t.kind === "BacklinkType") {
      const target = ctx.types.get(t.target.text);
      if (!target) continue; // reported by fields.ts
      const back = fieldsOf(target).find((f) => f.name.text === t.field.text);
      if (!back) {
        ctx.bag.report("WO2004", t.field.span, {
          target: t.target.text,
          field: t.field.text,
          hint: didYouMean(
            t.field.text,
            fieldsOf(target).map((f) => f.name.text),
          ),
        });
      } else if (!(back.type.kind === "RefType" && back.type.target.text === self)) {
        ctx.bag.report("WO2005", t.field.span, { target: t.target.text, field: t.field.text, type: self });
      }
    } else if (t.kind === "MultiType") {
      const target = ctx.types.get(t.target.text);
      if (!target) continue;
      if (t.via) {
        const link = ctx.types.get(t.via.text);
        if (!link) continue;
        if (!link.link) {
          ctx.bag.report("WO2006", t.via.span, { target: t.target.text, via: t.via.text });
          continue;
        }
        const ends = [link.link.from.text, link.link.to.text];
        const connects =
          (ends[0] === self && ends[1] === t.target.text) || (ends[1] === self && ends[0] === t.target.text);
        if (!connects) {
          ctx.bag.report("WO2007", t.via.span, {
            target: t.target.text,
            via: t.via.text,
            from: ends[0]!,
            to: ends[1]!,
            type: self,
          });
        }
      } else if (!t.edgeLabel) {
        // Without `via` (or an edge label, which has a link table of its own: edges.ts), `self.rel` is resolved through the one `ref Self` column of the target.
        const count = fieldsOf(target).filter((f) => f.type.kind === "RefType" && f.type.target.text === self).length;
        if (count !== 1)
          ctx.bag.report("WO2110", t.target.span, { target: t.target.text, count: String(count), type: self });
      }
    }
  }
}

function fieldsOf(decl: TypeDecl): FieldDecl[] {
  return decl.members.filter((m): m is FieldDecl => m.kind === "FieldDecl");
}

/**
 * A type that contains itself by value (directly, or through structs, arrays and other
 * embedded types) has no finite row shape. Reported once per cycle, at the field that closes it.
 */
export function checkEmbeddingCycles(types: CatalogType[], decls: Map<string, TypeDecl>, bag: DiagnosticBag): void {
  const byName = new Map(types.map((t) => [t.name, t]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (name: string): void => {
    state.set(name, "visiting");
    stack.push(name);
    const type = byName.get(name);
    for (const field of type?.fields ?? []) {
      for (const inner of embeddedNames(field.type)) {
        const s = state.get(inner);
        if (s === "visiting") {
          const cycle = [...stack.slice(stack.indexOf(inner)), inner].join(" → ");
          const span = fieldSpan(decls.get(name), field) ?? decls.get(name)!.name.span;
          bag.report("WO2025", span, { name: inner, cycle });
        } else if (s === undefined && byName.has(inner)) {
          visit(inner);
        }
      }
    }
    stack.pop();
    state.set(name, "done");
  };
  for (const t of types) if (!state.has(t.name)) visit(t.name);
}

function embeddedNames(type: FieldType): string[] {
  switch (type.kind) {
    case "embedded":
      return [type.type];
    case "array":
      return embeddedNames(type.element);
    case "struct":
      return type.fields.flatMap((f) => embeddedNames(f.type));
    default:
      return [];
  }
}

function fieldSpan(decl: TypeDecl | undefined, field: CatalogField) {
  const found = decl ? fieldsOf(decl).find((f) => f.name.text === field.name) : undefined;
  return found ? typeSpan(found.type) : undefined;
}

function typeSpan(t: TypeExpr) {
  return t.span;
}
