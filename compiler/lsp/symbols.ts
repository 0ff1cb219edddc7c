// What name is under the cursor: a type, a field or a method, resolved across the program.
// Serves hover and go to definition (server.ts).
//
// Walks one file's AST (spec/language.md "Grammar") and stops at the first name whose span
// holds the offset; the end of a name counts, so a cursor just after `Author` is on it.
// Field names resolve where the language says which type they belong to: declarations,
// `backlink T.f`, `@table(index: […])`, `self.f`, `insert T { f: … }`, `select T { f … }`
// and `update … set f = …`.

import type { Block, Expr, FieldDecl, FnDecl, IfStmt, Name, SourceFileAst, Stmt, TypeDecl, TypeExpr } from "../ast.js";

export type SymbolRef =
  /** A type name: declared (`decl`) or a scalar (`Text`) or unknown (no `decl`). */
  | { kind: "type"; name: string; decl?: TypeDecl; at: Name }
  /** `parents`: the fields of `owner` whose inline struct holds this field (`seo` for `seo.title`). */
  | { kind: "field"; owner: TypeDecl; parents: string[]; field: FieldDecl; at: Name }
  | { kind: "method"; owner: TypeDecl; fn: FnDecl; at: Name };

type Found = SymbolRef | undefined;

export function symbolAt(ast: SourceFileAst, offset: number, types: ReadonlyMap<string, TypeDecl>): Found {
  const on = (name: Name | undefined) => name !== undefined && name.span.offset <= offset && offset <= name.span.end;
  const typeRef = (name: Name): Found =>
    on(name) ? { kind: "type", name: name.text, decl: types.get(name.text), at: name } : undefined;
  const fieldOf = (owner: TypeDecl | undefined, name: Name): Found => {
    if (!owner || !on(name)) return undefined;
    const field = fieldsOf(owner).find((f) => f.name.text === name.text);
    return field ? { kind: "field", owner, parents: [], field, at: name } : undefined;
  };

  function inTypeExpr(t: TypeExpr, owner: TypeDecl, parents: string[]): Found {
    switch (t.kind) {
      case "NamedType":
        return typeRef(t.name);
      case "UnionType":
        return undefined;
      case "RefType":
        return typeRef(t.target);
      case "MultiType":
        return typeRef(t.target) ?? (t.via ? typeRef(t.via) : undefined);
      case "BacklinkType":
        return typeRef(t.target) ?? fieldOf(types.get(t.target.text), t.field);
      case "ArrayType":
        return inTypeExpr(t.element, owner, parents);
      case "StructType":
        for (const f of t.fields) {
          const found = inField(f, owner, parents);
          if (found) return found;
        }
        return undefined;
    }
  }

  function inField(f: FieldDecl, owner: TypeDecl, parents: string[]): Found {
    if (on(f.name)) return { kind: "field", owner, parents, field: f, at: f.name };
    return inTypeExpr(f.type, owner, [...parents, f.name.text]);
  }

  function inExpr(e: Expr, self: TypeDecl): Found {
    switch (e.kind) {
      case "BinaryExpr":
        return inExpr(e.left, self) ?? inExpr(e.right, self);
      case "UnaryExpr":
        return inExpr(e.operand, self);
      case "MemberExpr": {
        const isSelf = e.object.kind === "NameExpr" && e.object.name.text === "self";
        return inExpr(e.object, self) ?? (isSelf ? fieldOf(self, e.member) : undefined);
      }
      case "CallExpr":
        return firstOf(e.args, (a) => inExpr(a, self));
      case "SelectExpr": {
        const target = types.get(e.type.text);
        return (
          typeRef(e.type) ??
          firstOf(e.predicates, (p) => fieldOf(target, p.column) ?? inExpr(p.value, self)) ??
          firstOf(e.projection, (p) => fieldOf(target, p))
        );
      }
      case "IndexExpr":
        return inExpr(e.object, self) ?? inExpr(e.index, self);
      case "MethodCallExpr":
        return inExpr(e.object, self) ?? firstOf(e.args, (a) => inExpr(a, self));
      case "ObjectExpr":
        return firstOf(e.entries, (x) => inExpr(x.value, self));
      case "ListExpr":
        return firstOf(e.items, (x) => inExpr(x, self));
      case "LiveExpr":
        return inExpr(e.query, self);
      case "EachExpr":
        return inExpr(e.list, self);
      case "NameExpr":
      case "LiteralExpr":
        return undefined;
    }
  }

  function inStmt(s: Stmt | IfStmt, self: TypeDecl): Found {
    switch (s.kind) {
      case "LetStmt":
        return s.value.kind === "InsertStmt" ? inStmt(s.value, self) : inExpr(s.value, self);
      case "InsertStmt": {
        const target = types.get(s.type.text);
        return typeRef(s.type) ?? firstOf(s.entries, (e) => fieldOf(target, e.name) ?? inExpr(e.value, self));
      }
      case "ReturnStmt":
        return s.value ? inExpr(s.value, self) : undefined;
      case "AssertStmt":
        return inExpr(s.condition, self);
      case "IfStmt":
        return (
          inExpr(s.condition, self) ??
          inBlock(s.then, self) ??
          (s.else ? (s.else.kind === "Block" ? inBlock(s.else, self) : inStmt(s.else, self)) : undefined)
        );
      case "UpdateStmt": {
        const t = s.target;
        const target = t.kind === "SelectExpr" ? types.get(t.type.text) : t.name.text === "self" ? self : undefined;
        return inExpr(t, self) ?? firstOf(s.assignments, (a) => fieldOf(target, a.field) ?? inExpr(a.value, self));
      }
      case "DeleteStmt":
        return inExpr(s.target, self);
      case "ForStmt":
        return inExpr(s.iterable, self) ?? inBlock(s.body, self);
      case "AssignStmt":
        return inExpr(s.target, self) ?? inExpr(s.value, self);
      case "ExprStmt":
        return inExpr(s.expr, self);
      case "LinkStmt":
        return inExpr(s.from, self) ?? firstOf(s.entries, (x) => inExpr(x.value, self)) ?? inExpr(s.to, self);
      case "ExpectAbortStmt":
      case "AsSessionStmt":
        return inBlock(s.body, self);
    }
  }

  const inBlock = (b: Block, self: TypeDecl): Found => firstOf(b.statements, (s) => inStmt(s, self));

  function inFn(fn: FnDecl, owner: TypeDecl): Found {
    if (on(fn.name)) return { kind: "method", owner, fn, at: fn.name };
    return (
      firstOf(fn.params, (p) => typeRef(p.type)) ??
      (fn.returnType ? typeRef(fn.returnType.name) : undefined) ??
      inBlock(fn.body, owner)
    );
  }

  function inType(decl: TypeDecl): Found {
    const found =
      typeRef(decl.name) ??
      (decl.link ? (typeRef(decl.link.from) ?? typeRef(decl.link.to)) : undefined) ??
      firstOf(decl.table?.indexes ?? [], (index) => firstOf(index.columns, (c) => fieldOf(decl, c)));
    if (found) return found;
    return firstOf(decl.members, (m): Found => {
      switch (m.kind) {
        case "FieldDecl":
          return inField(m, decl, []);
        case "FnDecl":
          return inFn(m, decl);
        case "ServiceDecl":
          return firstOf(m.expose, (entry) => {
            const fn = methodsOf(decl).find((f) => f.name.text === entry.text);
            return fn && on(entry) ? { kind: "method", owner: decl, fn, at: entry } : undefined;
          });
        default:
          return undefined;
      }
    });
  }

  return firstOf(ast.items, (item) => (item.kind === "TypeDecl" ? inType(item) : undefined));
}

export function fieldsOf(decl: TypeDecl): FieldDecl[] {
  return decl.members.filter((m): m is FieldDecl => m.kind === "FieldDecl");
}

/** The methods of a class; a `fn` in a plain `type` is no method (spec/language.md, Methods). */
export function methodsOf(decl: TypeDecl): FnDecl[] {
  return decl.keyword === "class" ? decl.members.filter((m): m is FnDecl => m.kind === "FnDecl") : [];
}

function firstOf<T, R>(items: readonly T[], f: (item: T) => R | undefined): R | undefined {
  for (const item of items) {
    const r = f(item);
    if (r !== undefined) return r;
  }
  return undefined;
}
