// Fields of a type or inline struct → CatalogField (model/app.ts).
//
// Owns: mapping type expressions to FieldType (unknown type names are reported here), the
// `id` rule (declared `id: Id` or a synthetic one, always first), duplicate fields, defaults
// (do they fit the type?), field annotations, and the flags isStored / isWritable /
// isRequiredOnCreate (spec/language.md, "Create required").
// Leaves to resolve.ts whether relations point back, and to storage.ts indexes and tables.

import { isFilledWhenOmitted } from "../../model/app.js";
import type { Annotation, DefaultExpr, FieldDecl, Literal, Span, TypeDecl, TypeExpr } from "../ast.js";
import type { CatalogField, FieldDefault, FieldType } from "../catalog.js";
import { type CheckContext, describeType, locationOf } from "./context.js";
import {
  isScalarName,
  type ScalarName,
  scalarNames,
  scalars,
  urlSchemePattern,
  urlSchemeText,
} from "../../model/scalars.js";
import { createInputAjv } from "../input-ajv.js";
import { didYouMean } from "./did-you-mean.js";
import { linkEndpointFields } from "../../model/naming.js";
import { renamedFrom } from "./renamed-from.js";
import { fieldCheck } from "./field-check.js";
import { checkHolds, type FieldCheck } from "../../model/field-check.js";
import { checkSearch } from "./search.js";

/** Field annotations wo knows but does not enforce yet (a warning each). */
const unenforcedAnnotations = new Set(["index"]);

/** Annotations that keep a field out of caller input (spec/language.md, "Read-only fields"). */
const accessAnnotations = new Set(["readonly", "immutable"]);

/** The catalog fields of a type: `id` first (declared or synthetic), then source order. */
export function buildTypeFields(decl: TypeDecl, ctx: CheckContext): CatalogField[] {
  const declared = decl.members.filter((m): m is FieldDecl => m.kind === "FieldDecl");
  const fields = buildFieldList(declared, `type '${decl.name.text}'`, ctx, true);
  const endpoints = decl.link ? linkEndpoints(decl, fields, ctx) : [];
  const idIndex = fields.findIndex((f) => f.name === "id");
  if (idIndex < 0) {
    return [syntheticId(decl.name.span), ...endpoints, ...fields];
  }
  // The store keys rows by `id`, and emitters rely on it coming first.
  const [id] = fields.splice(idIndex, 1);
  return [id!, ...endpoints, ...fields];
}

/**
 * `type L link A -> B` stores its endpoints in two `ref` fields (spec/language.md, "Link
 * types"): required on create, never updated (a link to other rows is another link).
 */
function linkEndpoints(decl: TypeDecl, declared: CatalogField[], ctx: CheckContext): CatalogField[] {
  const link = decl.link!;
  const names = linkEndpointFields(link.from.text, link.to.text);
  const ends = [
    { name: names.fromField, target: link.from },
    { name: names.toField, target: link.to },
  ];
  for (const end of ends) {
    const clash = declared.find((f) => f.name === end.name);
    if (clash) {
      const span =
        decl.members.find((m): m is FieldDecl => m.kind === "FieldDecl" && m.name.text === end.name)?.name.span ??
        decl.name.span;
      ctx.bag.report("WO2029", span, { name: end.name, link: decl.name.text, target: end.target.text });
    }
  }
  return ends.map((end) => linkEndField(end.name, end.target.text, locationOf(end.target.span)));
}

/** One end of a link: a required, immutable ref (spec/language.md "Link types"). */
export function linkEndField(name: string, target: string, source: CatalogField["source"]): CatalogField {
  return {
    name,
    type: { kind: "ref", target },
    isOptional: false,
    isUnique: false,
    isStored: true,
    isWritable: true,
    isImmutable: true,
    isRequiredOnCreate: true,
    source,
  };
}

function syntheticId(span: Span): CatalogField {
  return syntheticIdAt(locationOf(span));
}

/** The `id` field wo adds to a type it makes itself (a link type, an edge relation's table). */
export function syntheticIdAt(source: CatalogField["source"]): CatalogField {
  return {
    name: "id",
    type: { kind: "scalar", scalar: "Id" },
    isOptional: false,
    isUnique: false,
    isStored: true,
    isWritable: false,
    isRequiredOnCreate: false,
    isSynthetic: true,
    source,
  };
}

/** `owner` names the type or struct in duplicate-field messages. */
function buildFieldList(decls: FieldDecl[], owner: string, ctx: CheckContext, isTopLevel: boolean): CatalogField[] {
  const seen = new Set<string>();
  const out: CatalogField[] = [];
  for (const decl of decls) {
    if (seen.has(decl.name.text)) {
      ctx.bag.report("WO2003", decl.name.span, { name: decl.name.text, owner });
      continue;
    }
    seen.add(decl.name.text);
    out.push(buildField(decl, ctx, isTopLevel));
  }
  return out;
}

function buildField(decl: FieldDecl, ctx: CheckContext, isTopLevel: boolean): CatalogField {
  const type = fieldType(decl.type, ctx, isTopLevel);
  const isRelation = type.kind === "multi" || type.kind === "backlink";
  if (isTopLevel && decl.name.text === "id" && !(type.kind === "scalar" && type.scalar === "Id")) {
    ctx.bag.report("WO2017", decl.type.span, { type: describeType(type) });
  }

  let isUnique = false;
  const access = new Map<string, Span>();
  let annotationDefault: Literal | undefined;
  let annotationDefaultSpan: Span | undefined;
  let previousName: string | undefined;
  let check: FieldCheck | undefined;
  let search: Annotation | undefined;
  let materialized: Span | undefined;
  for (const a of decl.annotations) {
    const name = a.name.text;
    if (name === "materialized") materialized = a.span;
    else if (name === "check") {
      check = fieldCheck(a, decl.name.text, type, ctx.bag) ?? check;
    } else if (name === "renamed_from") {
      previousName = renamedFrom(a, "a field", `old_${decl.name.text}`, ctx.bag);
      if (previousName !== undefined && !isTopLevel) {
        ctx.bag.report("WO2041", a.span, {
          what: "a field",
          example: previousName,
          why: ", and only on a top-level field (a struct is stored whole)",
        });
        previousName = undefined;
      }
    } else if (name === "unique") {
      isUnique = true;
      const what = unstorableReason(type);
      if (what !== undefined) ctx.bag.report("WO2024", a.span, { field: decl.name.text, what });
    } else if (name === "default") {
      if (a.defaultValue) {
        annotationDefault = a.defaultValue;
        annotationDefaultSpan = a.span;
      } else {
        ctx.bag.report("WO2108", a.span, { name: "default(…) without a literal" });
      }
    } else if (name === "schemes") {
      const schemes = urlSchemes(a.argsText, type);
      if (typeof schemes === "string") ctx.bag.report("WO2040", a.span, { field: decl.name.text, why: schemes });
      else if (type.kind === "scalar") type.schemes = schemes;
    } else if (name === "search") {
      search = a;
    } else if (accessAnnotations.has(name)) {
      access.set(name, a.span);
    } else if (unenforcedAnnotations.has(name)) {
      ctx.bag.report("WO2108", a.span, { name });
    } else {
      ctx.bag.report("WO2105", a.name.span, { name });
    }
  }

  let source: DefaultExpr | undefined = decl.default;
  // Both `= …` and @default(…): the parser reports it (WO1009); `= …` wins here.
  if (annotationDefault && !source) {
    source = { kind: "LiteralDefault", value: annotationDefault, span: annotationDefaultSpan! };
  }
  const fieldDefault = source ? checkDefault(source, decl, type, ctx) : undefined;

  const isId = type.kind === "scalar" && type.scalar === "Id";
  const isComputed = fieldDefault?.kind === "computed";
  // `@materialized` (spec/language.md, "Computed fields"): the computed value has a column.
  if (materialized && !(isTopLevel && decl.default?.kind === "ComputedDefault" && decl.default.expr))
    ctx.bag.report("WO2070", materialized, { field: decl.name.text });
  else if (materialized && fieldDefault?.kind === "computed") fieldDefault.isMaterialized = true;
  const isStored = !isRelation && (!isComputed || materialized !== undefined);
  const field: CatalogField = {
    name: decl.name.text,
    type,
    isOptional: decl.isOptional,
    isUnique,
    isStored,
    isWritable: isStored && !isComputed && !(isTopLevel && decl.name.text === "id"),
    // spec/language.md "Create required": no default, not optional, not Id, not computed/relation.
    isRequiredOnCreate:
      fieldDefault === undefined &&
      !decl.isOptional &&
      !isId &&
      !isRelation &&
      !isFilledWhenOmitted({ type, isOptional: decl.isOptional }),
    source: locationOf(decl.name.span),
  };
  if (fieldDefault) field.default = fieldDefault;
  if (decl.doc) field.doc = decl.doc;
  if (check && fieldDefault?.kind === "literal" && !checkHolds(check, fieldDefault.value)) {
    // Every create that omits the field would break the check.
    ctx.bag.report("WO2045", decl.name.span, {
      field: decl.name.text,
      why: `is broken by the field's own default ${JSON.stringify(fieldDefault.value)}`,
    });
  } else if (check) field.check = check;
  if (previousName !== undefined && previousName !== field.name && field.isStored) field.renamedFrom = previousName;
  if (search && checkSearch(search, field, isTopLevel, ctx.bag)) field.isSearched = true;
  for (const [name, span] of access) {
    const why = !isTopLevel
      ? "only top-level fields are read-only (a struct is written whole)"
      : !field.isWritable
        ? "callers can never set this field anyway"
        : undefined;
    if (why) ctx.bag.report("WO2028", span, { name, field: decl.name.text, why });
    else if (name === "readonly") field.isReadonly = true;
    else field.isImmutable = true;
  }
  if (field.isReadonly) {
    // Never in create input: a value nobody gives must come from a default, null or `[]`.
    field.isRequiredOnCreate = false;
    if (fieldDefault === undefined && !decl.isOptional && type.kind !== "array") {
      ctx.bag.report("WO2027", access.get("readonly")!, { field: decl.name.text });
    }
  }
  return field;
}

/**
 * `@schemes("https", "ftp")` on a Url field: the schemes its values may have, instead of
 * defaultUrlSchemes (spec/schemas.md, "Url"); lower case, in order, each once. Or why not.
 */
function urlSchemes(argsText: string | undefined, type: FieldType): string[] | string {
  if (type.kind !== "scalar" || type.scalar !== "Url") return "only a Url field takes schemes";
  const items = (argsText ?? "").split(",").map((item) => item.trim());
  const schemes: string[] = [];
  for (const item of items) {
    const m = /^"([^"\\]*)"$/.exec(item);
    if (!m || !urlSchemeText.test(m[1]!))
      return `'${item}' is not a scheme in quotes; write e.g. @schemes("https", "ftp")`;
    const scheme = m[1]!.toLowerCase();
    if (!schemes.includes(scheme)) schemes.push(scheme);
  }
  return schemes;
}

/** Why a field of this type cannot carry a column constraint, or undefined when it can. */
export function unstorableReason(type: FieldType): string | undefined {
  switch (type.kind) {
    case "scalar":
    case "union":
    case "ref":
      return undefined;
    case "multi":
    case "backlink":
      return "a relation without a stored column";
    case "array":
      return "an array";
    case "struct":
      return "an inline struct";
    case "embedded":
      return `an embedded '${type.type}'`;
  }
}

/** Maps a type expression; relations are allowed only as the whole type of a top-level field. */
export function fieldType(expr: TypeExpr, ctx: CheckContext, isTopLevel: boolean): FieldType {
  switch (expr.kind) {
    case "NamedType": {
      const name = expr.name.text;
      if (isScalarName(name)) return { kind: "scalar", scalar: name };
      requireType(expr.name.text, expr.name.span, ctx, true);
      return { kind: "embedded", type: name };
    }
    case "UnionType": {
      const seen = new Set<string>();
      for (const v of expr.variants) {
        if (seen.has(v.text)) ctx.bag.report("WO2019", v.span, { name: v.text });
        seen.add(v.text);
      }
      return { kind: "union", variants: [...seen] };
    }
    case "RefType":
      requireType(expr.target.text, expr.target.span, ctx);
      return { kind: "ref", target: expr.target.text };
    case "MultiType": {
      if (!isTopLevel) ctx.bag.report("WO2026", expr.span, { what: "multi" });
      requireType(expr.target.text, expr.target.span, ctx);
      if (expr.via) requireType(expr.via.text, expr.via.span, ctx);
      const type: FieldType = { kind: "multi", target: expr.target.text };
      if (expr.edgeLabel) type.edgeLabel = expr.edgeLabel.text;
      if (expr.via) type.via = expr.via.text;
      return type;
    }
    case "BacklinkType":
      if (!isTopLevel) ctx.bag.report("WO2026", expr.span, { what: "backlink" });
      requireType(expr.target.text, expr.target.span, ctx);
      return { kind: "backlink", target: expr.target.text, field: expr.field.text };
    case "ArrayType":
      return { kind: "array", element: fieldType(expr.element, ctx, false) };
    case "StructType":
      return { kind: "struct", fields: buildFieldList(expr.fields, "this struct", ctx, false) };
  }
}

/**
 * Reports WO2001 unless `name` is a declared type, suggesting the nearest declared type — or
 * scalar, where `orScalar` says a scalar would fit (a field's or a method signature's type).
 */
export function requireType(name: string, span: Span, ctx: CheckContext, orScalar = false): boolean {
  if (ctx.types.has(name)) return true;
  const familiar = orScalar ? familiarScalarNames.get(name.toLowerCase()) : undefined;
  ctx.bag.report("WO2001", span, {
    name,
    hint: familiar
      ? ` Did you mean '${familiar}'?`
      : didYouMean(name, orScalar ? [...scalarNames, ...ctx.types.keys()] : ctx.types.keys()),
  });
  return false;
}

/**
 * Other languages' names for wo's scalars, the first thing a newcomer writes: too far from
 * wo's names for the edit distance (`String` is four edits from `Text`). A declared type of
 * that name wins, being found first.
 */
const familiarScalarNames = new Map<string, ScalarName>([
  ["string", "Text"],
  ["str", "Text"],
  ["integer", "Int"],
  ["long", "Int"],
  ["boolean", "Bool"],
  ["double", "Float"],
  ["datetime", "Timestamp"],
  ["date", "Timestamp"],
]);

// ---------------------------------------------------------------------------------------------
// Defaults

/** Each scalar's schema, compiled once when a default of it is first checked. */
const scalarValidators = new Map<ScalarName, (value: unknown) => boolean>();
/** One ajv for them all: each new one compiles the JSON Schema meta-schema first (~40 ms). */
let defaultsAjv: ReturnType<typeof createInputAjv> | undefined;

function fitsScalarSchema(type: { scalar: ScalarName; schemes?: string[] }, value: unknown): boolean {
  const name = type.scalar;
  // A Url field's own schemes: its schema differs from the scalar's, and such fields are few.
  if (type.schemes) {
    const schema = { ...scalars[name].schema, pattern: urlSchemePattern(type.schemes) };
    return createInputAjv({ standalone: false }).compile(schema)(value) === true;
  }
  let validate = scalarValidators.get(name);
  if (validate === undefined) {
    const compiled = (defaultsAjv ??= createInputAjv({ standalone: false })).compile(scalars[name].schema);
    validate = (v) => compiled(v) === true;
    scalarValidators.set(name, validate);
  }
  return validate(value);
}

function checkDefault(
  expr: DefaultExpr,
  decl: FieldDecl,
  type: FieldType,
  ctx: CheckContext,
): FieldDefault | undefined {
  const field = decl.name.text;
  const typeText = describeType(type);
  if (type.kind === "multi" || type.kind === "backlink") {
    ctx.bag.report("WO2016", expr.span, { field, why: "a relation has no stored column" });
    return undefined;
  }
  if (type.kind === "scalar" && type.scalar === "Id") {
    ctx.bag.report("WO2016", expr.span, { field, why: "ids are minted by the store" });
    return undefined;
  }
  const misfit = (value: string): undefined => {
    ctx.bag.report("WO2012", expr.span, { value, field, type: typeText });
    return undefined;
  };
  switch (expr.kind) {
    case "ComputedDefault":
      // Read as an expression: typed and compiled by row-exprs.ts; otherwise kept as text.
      if (!expr.expr) ctx.bag.report("WO2107", expr.span, { field, why: "it is not an expression wo can read" });
      return { kind: "computed", text: expr.text };
    case "NowDefault":
      if (type.kind === "scalar" && type.scalar === "Timestamp") return { kind: "now" };
      return misfit("now()");
    case "VariantDefault": {
      const name = expr.name.text;
      if (type.kind !== "union") return misfit(name);
      if (!type.variants.includes(name)) {
        ctx.bag.report("WO2013", expr.span, { value: name, variants: type.variants.join(" | ") });
        return undefined;
      }
      return { kind: "literal", value: name };
    }
    case "LiteralDefault": {
      const lit = expr.value;
      const shown = lit.literalType === "string" ? JSON.stringify(lit.value) : String(lit.value);
      const ok = { kind: "literal", value: lit.value } as const;
      if (lit.literalType === "null") {
        if (decl.isOptional) return ok;
        ctx.bag.report("WO2014", expr.span, { field, type: typeText });
        return undefined;
      }
      if (lit.literalType === "int" && !Number.isSafeInteger(lit.value)) {
        ctx.bag.report("WO2018", expr.span, { value: shown });
        return undefined;
      }
      switch (type.kind) {
        case "scalar": {
          const scalar = scalars[type.scalar];
          if (!scalar.literals.includes(lit.literalType)) return misfit(shown);
          // Stored in the scalar's one form, as every value of it is (a Timestamp in UTC).
          const value = scalar.parseText ? scalar.parseText(String(lit.value)) : lit.value;
          // A default is stored as if a client had sent it: it must pass the field's schema too
          // (a Slug's pattern, an Email's format), or every create that omits it would store a
          // value no client may write.
          if (value === undefined || !fitsScalarSchema(type, value)) return misfit(shown);
          return value === lit.value ? ok : { kind: "literal", value };
        }
        case "union":
          if (lit.literalType === "string" && type.variants.includes(String(lit.value))) return ok;
          if (lit.literalType === "string") {
            ctx.bag.report("WO2013", expr.span, { value: String(lit.value), variants: type.variants.join(" | ") });
            return undefined;
          }
          return misfit(shown);
        case "ref":
          if (lit.literalType === "int" && Number(lit.value) >= 1) return ok;
          return misfit(shown);
        case "array":
        case "struct":
        case "embedded":
          return misfit(shown);
      }
    }
  }
}
