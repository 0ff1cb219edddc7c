// Services and exposure: `service rest|mcp|graphql|native "P" expose …` → CatalogService,
// `rest` routes and `mcp` tools of each type, plus the program-wide clash checks.
//
// Owns (spec/language.md, "Services and exposure"): service kinds, path syntax, expose entries
// (a built-in op or a method of this class, else an error with a suggestion), `subscribe`/`me`
// placement, the MCP governing list, duplicate/overlapping REST paths across the program, and
// tool-name uniqueness. Leaves tool schemas and routes to the emitters.

import type { Name, ServiceDecl, Span, TypeDecl } from "../ast.js";
import {
  crudOps,
  isRestOnlyOp,
  restOnlyOps,
  type CatalogMethod,
  type CatalogService,
  type CatalogType,
  type ExposedOp,
} from "../catalog.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { toolName } from "../../model/naming.js";
import { type CheckContext, locationOf } from "./context.js";
import { didYouMean } from "./did-you-mean.js";
import { allRelationOps, relationOps } from "../../model/relations.js";

const serviceKinds = new Set(["rest", "mcp", "graphql", "native"]);

/** A type's services plus where each exposed op was first named (for later clash reports). */
export interface TypeExposure {
  services: CatalogService[];
  rest: CatalogType["rest"];
  mcp: ExposedOp[];
  /** Span of each service's path, parallel to `rest` (REST path clashes point here). */
  restPathSpans: Span[];
  /** Span of the first mention of each MCP op in the governing list. */
  mcpSpans: Map<string, Span>;
}

export function buildServices(decl: TypeDecl, methods: CatalogMethod[], ctx: CheckContext): TypeExposure {
  const out: TypeExposure = { services: [], rest: [], mcp: [], restPathSpans: [], mcpSpans: new Map() };
  const methodNames = new Set(methods.map((m) => m.name));
  const plainFns =
    decl.keyword === "class"
      ? new Set<string>()
      : new Set(decl.members.flatMap((m) => (m.kind === "FnDecl" ? [m.name.text] : [])));
  const decls = decl.members.filter((m): m is ServiceDecl => m.kind === "ServiceDecl");
  const mcpLists: Name[][] = [];
  const restLists: Name[][] = [];
  for (const s of decls) {
    const kind = s.serviceKind.text;
    if (!serviceKinds.has(kind)) {
      ctx.bag.report("WO3007", s.serviceKind.span, { name: kind });
      continue;
    }
    checkPath(s, ctx.bag);
    const expose = checkExposeList(s, decl.name.text, methodNames, plainFns, ctx);
    const service: CatalogService = {
      kind: kind as CatalogService["kind"],
      path: s.path.value,
      expose: expose.map((n) => n.text),
      source: locationOf(s.span),
    };
    out.services.push(service);
    if (kind === "rest") {
      // Every method of a class is routed on each of its REST paths, listed or not (the
      // language's plan 13b); the listed ones keep their order, the rest follow in declaration order.
      const unlisted =
        decl.keyword === "class" ? methods.map((m) => m.name).filter((m) => !service.expose.includes(m)) : [];
      out.rest.push({ path: s.path.value, ops: [...service.expose, ...unlisted] });
      out.restPathSpans.push(s.path.span);
      restLists.push(expose);
    } else if (kind === "mcp") {
      mcpLists.push(expose);
    } else {
      ctx.bag.report("WO3102", s.serviceKind.span, { kind });
    }
  }
  // A `service mcp` block, when present, alone decides; else the rest lists do.
  const governing = decls.some((s) => s.serviceKind.text === "mcp") ? mcpLists : restLists;
  for (const list of governing) {
    for (const entry of list) {
      if (isRestOnlyOp(entry.text) || out.mcpSpans.has(entry.text)) continue;
      out.mcpSpans.set(entry.text, entry.span);
      out.mcp.push(entry.text);
    }
  }
  return out;
}

/** A method with no route (its class has no `service rest`) and no tool: say so at its name (WO3105). */
export function warnUnexposedMethods(decl: TypeDecl, exposure: TypeExposure, bag: DiagnosticBag): void {
  const exposed = new Set([...exposure.rest.flatMap((r) => r.ops), ...exposure.mcp]);
  for (const member of decl.members) {
    if (member.kind !== "FnDecl" || decl.keyword !== "class" || exposed.has(member.name.text)) continue;
    bag.report("WO3105", member.name.span, { name: member.name.text, type: decl.name.text });
  }
}

/** Valid, de-duplicated entries of one expose list (in order). */
function checkExposeList(
  s: ServiceDecl,
  typeName: string,
  methods: Set<string>,
  plainFns: Set<string>,
  ctx: CheckContext,
): Name[] {
  const kind = s.serviceKind.text;
  const seen = new Set<string>();
  const valid: Name[] = [];
  for (const entry of s.expose) {
    const name = entry.text;
    if (seen.has(name)) {
      ctx.bag.report("WO3103", entry.span, { name });
      continue;
    }
    seen.add(name);
    if (isRestOnlyOp(name)) {
      if (kind !== "rest") {
        ctx.bag.report("WO3002", entry.span, { name, kind: `service ${kind}` });
        continue;
      }
      // `subscribe` is served (GET P/live, spec/live.md); `me` is an operation like get.
    } else if (!(crudOps as readonly string[]).includes(name) && name !== "me" && !methods.has(name)) {
      const hint = plainFns.has(name)
        ? ` It is a fn of the plain type '${typeName}'; declare '${typeName}' as a class to make it a method.`
        : didYouMean(name, [...crudOps, "me", ...(kind === "rest" ? restOnlyOps : []), ...methods]);
      ctx.bag.report("WO3001", entry.span, { name, type: typeName, hint });
      continue;
    }
    valid.push(entry);
  }
  return valid;
}

/** Why a REST path is malformed, or undefined when it is fine (spec/language.md "Service paths"). */
export function restPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "a path starts with '/'";
  if (/\s/.test(path)) return "spaces are not allowed";
  for (const ch of [":", "?", "#"]) {
    if (path.includes(ch)) return `'${ch}' is not allowed (wo adds '/:id' and method segments itself)`;
  }
  if (path.length > 1 && path.endsWith("/")) return "remove the trailing '/'";
  if (path.includes("//")) return "empty path segment '//'";
  const bad = /[^A-Za-z0-9._~/-]/.exec(path);
  if (bad) return `'${bad[0]}' is not allowed; use letters, digits, '-', '_', '.', '~' and '/'`;
  if (path === "/") return "'/' is the explorer; name the collection, e.g. '/api/posts'";
  const reserved = reservedPaths.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  if (reserved) return `'${reserved[0]}' is ${reserved[1]}`;
  return undefined;
}

/**
 * wo's own routes: a REST path may be anywhere else (`/api/posts` by convention; the language's
 * docs use `/articles`), never on or inside one of these, which it would shadow.
 */
const reservedPaths: readonly (readonly [string, string])[] = [
  ["/mcp", "the MCP endpoint"],
  ["/healthz", "wo's health check"],
  ["/docs", "the API documentation page"],
  ["/openapi.json", "the OpenAPI document"],
  ["/explorer", "the explorer's files"],
  ["/_wo", "wo's runtime endpoints"],
  ["/api/_events", "the stream of the app's events"],
  ["/api/_jobs", "the worker API of the app's jobs"],
  ["/.well-known", "for the OAuth resource metadata"],
];

function checkPath(s: ServiceDecl, bag: DiagnosticBag): void {
  const kind = s.serviceKind.text;
  const path = s.path.value;
  if (kind === "rest") {
    const why = restPathProblem(path);
    if (why) bag.report("WO3003", s.path.span, { path, why });
  } else if (kind === "mcp" && path !== "/mcp") {
    bag.report("WO3101", s.path.span, { path });
  }
}

/**
 * Program-wide: the same REST path twice, or one path inside another (`/api/posts/drafts`
 * would be captured by `/api/posts/:id`), is an error at the later one.
 */
export function checkRestPathClashes(types: { type: CatalogType; exposure: TypeExposure }[], bag: DiagnosticBag): void {
  // Maps keep this linear in the number of paths (a quadratic scan showed in the compile bench).
  const used = new Map<string, string>(); // path → owning type
  const inside = new Map<string, { path: string; type: string }>(); // proper prefix → a longer path
  for (const { type, exposure } of types) {
    type.rest.forEach((r, i) => {
      const span = exposure.restPathSpans[i]!;
      const owner = used.get(r.path);
      if (owner !== undefined) {
        bag.report("WO3004", span, { path: r.path, clash: "is already used by", other: r.path, type: owner });
        return;
      }
      const prefixes = properPrefixes(r.path);
      const outer = prefixes.find((p) => used.has(p));
      const longer = inside.get(r.path);
      if (outer !== undefined || longer !== undefined) {
        const other = outer !== undefined ? { path: outer, type: used.get(outer)! } : longer!;
        bag.report("WO3004", span, { path: r.path, clash: "overlaps", other: other.path, type: other.type });
        return;
      }
      used.set(r.path, type.name);
      for (const p of prefixes) if (!inside.has(p)) inside.set(p, { path: r.path, type: type.name });
    });
  }
}

/** `/api/a/b` → [`/api/a`, `/api`]: the paths this one lies inside. */
function properPrefixes(path: string): string[] {
  const out: string[] = [];
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * Program-wide: every generated tool name is unique (WO3005), reported at the later entry —
 * relation tools (`post_tags`, `post_tags_add`) included, reported at their field.
 */
export function checkToolNames(
  types: { type: CatalogType; exposure: TypeExposure }[],
  catalog: { types: CatalogType[] },
  decls: Map<string, TypeDecl>,
  bag: DiagnosticBag,
): number {
  const owners = new Map<string, string>();
  for (const { type, exposure } of types) {
    const entries = [
      ...type.mcp.map((op) => ({ op, span: exposure.mcpSpans.get(op)!, what: `'${op}' of '${type.name}'` })),
      ...relationOps(catalog, type, type.mcp).map((r) => ({
        op: r.op,
        span: fieldNameSpan(decls.get(type.name), r.relation.field.name),
        what: `relation '${r.relation.field.name}' of '${type.name}'`,
      })),
    ];
    for (const { op, span, what } of entries) {
      const name = toolName(type.name, op);
      const owner = owners.get(name);
      if (owner) bag.report("WO3005", span, { name, other: owner });
      else owners.set(name, what);
    }
  }
  return owners.size;
}

/**
 * A relation's operations (`tags`, `tags_add`, `tags_remove`) share the type's namespace of
 * ops and methods: REST `P/:id/tags` and tool `post_tags` would be a method's too.
 */
export function checkRelationNames(types: CatalogType[], decls: Map<string, TypeDecl>, bag: DiagnosticBag): void {
  const catalog = { types };
  for (const type of types) {
    const reported = new Set<string>();
    for (const r of allRelationOps(catalog, type)) {
      const field = r.relation.field.name;
      const other =
        (crudOps as readonly string[]).includes(r.op) || isRestOnlyOp(r.op) || r.op === "me"
          ? `the built-in operation '${r.op}'`
          : type.methods.some((m) => m.name === r.op)
            ? `the method '${r.op}'`
            : undefined;
      if (other === undefined || reported.has(field)) continue;
      reported.add(field);
      bag.report("WO3009", fieldNameSpan(decls.get(type.name), field), { field, op: r.op, other });
    }
  }
}

function fieldNameSpan(decl: TypeDecl | undefined, field: string): Span {
  const found = decl?.members.find((m) => m.kind === "FieldDecl" && m.name.text === field);
  return found && found.kind === "FieldDecl" ? found.name.span : decl!.name.span;
}
