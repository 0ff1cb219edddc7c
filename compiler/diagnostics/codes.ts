// The one table of diagnostic codes. Call sites name a code and its parameters; the message
// text lives only here. spec/diagnostics.md documents every code, and a test checks that the
// table and the document agree. A retired code leaves this table but keeps its row in the
// document, marked retired, so it is never reused.
//
//   WO1xxx  lexing and parsing          WO2xxx  declarations, fields and types
//   WO3xxx  services and exposure       WO4xxx  project files and wo.toml
//   WO5xxx  method bodies

export interface DiagnosticDef<P extends string = string> {
  severity: "error" | "warning";
  message: (params: Record<P, string>) => string;
}

/** Tagged template: msg`Unknown type '${"name"}'.` builds a typed message function. */
function msg<const P extends string>(
  strings: TemplateStringsArray,
  ...keys: P[]
): (params: Record<P, string>) => string {
  return (params) => strings.reduce((out, s, i) => out + s + (i < keys.length ? params[keys[i]!] : ""), "");
}

export const codes = {
  // WO1xxx: lexing and parsing
  WO1001: { severity: "error", message: msg`Unexpected character '${"char"}'.` },
  WO1002: { severity: "error", message: msg`Unterminated string literal.` },
  WO1003: { severity: "error", message: msg`Expected ${"expected"} but found ${"found"}.` },
  WO1004: {
    severity: "error",
    message: msg`Nesting deeper than ${"max"} levels of brackets; simplify this declaration.`,
  },
  WO1005: {
    severity: "error",
    message: msg`'${"name"}' is not a valid ${"what"} name: hyphens are not allowed in names (write '${"suggestion"}').`,
  },
  WO1006: {
    severity: "error",
    message: msg`Array elements cannot be optional: write '[T]?' for an optional array, not '[T?]'.`,
  },
  WO1007: { severity: "error", message: msg`@table(name: ...) given twice.` },
  WO1008: {
    severity: "error",
    message: msg`Comparison operators cannot be chained: '${"op"}' follows a comparison; combine comparisons with 'and'.`,
  },
  WO1009: { severity: "error", message: msg`Field '${"name"}' has both '= …' and '@default(…)'; keep one of them.` },
  WO1010: { severity: "error", message: msg`Too many errors in this file; stopping after ${"count"}.` },
  WO1011: {
    severity: "error",
    message: msg`@table given twice on '${"name"}'; merge the arguments into one @table(...).`,
  },
  WO1012: {
    severity: "error",
    message: msg`Expression nested too deeply to parse; split it into smaller parts with 'let'.`,
  },
  WO1013: {
    severity: "error",
    message: msg`Expression too deep: more than ${"max"} operators, members or calls inside one another; split it into smaller parts with 'let'.`,
  },
  // WO2xxx: declarations, fields and types
  WO2001: { severity: "error", message: msg`Unknown type '${"name"}'.${"hint"}` },
  WO2002: { severity: "error", message: msg`Duplicate type '${"name"}': it is already declared at ${"first"}.` },
  WO2003: { severity: "error", message: msg`Duplicate field '${"name"}' in ${"owner"}.` },
  WO2004: {
    severity: "error",
    message: msg`backlink ${"target"}.${"field"}: '${"target"}' has no field '${"field"}'.${"hint"}`,
  },
  WO2005: {
    severity: "error",
    message: msg`backlink ${"target"}.${"field"}: field '${"field"}' is not a ref to '${"type"}', so it does not point back.`,
  },
  WO2006: {
    severity: "error",
    message: msg`multi ${"target"} via ${"via"}: '${"via"}' is not a link type (declare it as 'type ${"via"} link A -> B { … }').`,
  },
  WO2007: {
    severity: "error",
    message: msg`multi ${"target"} via ${"via"}: link '${"via"}' connects '${"from"}' and '${"to"}', not '${"type"}' and '${"target"}'.`,
  },
  WO2008: { severity: "error", message: msg`Unknown @table key '${"key"}' (supported: name, index).` },
  WO2009: { severity: "error", message: msg`@table index column '${"name"}' is not a field of '${"type"}'.${"hint"}` },
  WO2010: {
    severity: "error",
    message: msg`@table index column '${"name"}' is not a stored scalar column: it is ${"what"}.`,
  },
  WO2011: { severity: "error", message: msg`Storage name '${"name"}' is already used by type '${"other"}'.` },
  WO2012: { severity: "error", message: msg`Default ${"value"} does not fit field '${"field"}' of type ${"type"}.` },
  WO2013: { severity: "error", message: msg`Default '${"value"}' is not a variant of ${"variants"}.` },
  WO2014: { severity: "error", message: msg`Default null needs an optional field: write '${"field"}: ${"type"}?'.` },
  WO2016: { severity: "error", message: msg`Field '${"field"}' cannot have a default: ${"why"}.` },
  WO2017: { severity: "error", message: msg`Field 'id' must have type Id, not ${"type"}: the store mints ids.` },
  WO2018: { severity: "error", message: msg`Integer default ${"value"} is outside the safe integer range.` },
  WO2019: { severity: "error", message: msg`Duplicate union variant '${"name"}'.` },
  WO2020: { severity: "error", message: msg`Duplicate method '${"name"}' in '${"type"}'.` },
  WO2021: { severity: "error", message: msg`Duplicate parameter '${"name"}' in method '${"method"}'.` },
  WO2022: { severity: "error", message: msg`Name '${"name"}' is not allowed for ${"what"}: ${"why"}.` },
  WO2023: { severity: "error", message: msg`Link type '${"name"}' cannot be an endpoint of itself.` },
  WO2024: { severity: "error", message: msg`@unique on '${"field"}' needs a stored scalar column; it is ${"what"}.` },
  WO2025: {
    severity: "error",
    message: msg`Type '${"name"}' contains itself by value (${"cycle"}); use 'ref ${"name"}' instead.`,
  },
  WO2026: { severity: "error", message: msg`'${"what"}' is only allowed as the type of a top-level field.` },
  WO2027: {
    severity: "error",
    message: msg`Field '${"field"}' is @readonly but has no default and is not optional: nothing could set it when a row is created. Give it a default or make it optional.`,
  },
  WO2028: { severity: "error", message: msg`'@${"name"}' on '${"field"}' has no effect: ${"why"}.` },
  WO2029: {
    severity: "error",
    message: msg`Field '${"name"}' clashes with the endpoint field '${"name"}' that link type '${"link"}' adds to store its '${"target"}' row; rename the field.`,
  },
  WO2030: { severity: "error", message: msg`Unknown trigger event '${"event"}' (known: ${"known"}).${"hint"}` },
  WO2031: {
    severity: "error",
    message: msg`'do set' in an 'on delete' trigger has no row to change: the row is being removed. Use 'on update', or 'do call' a fn.`,
  },
  WO2032: {
    severity: "error",
    message: msg`'${"name"}.id' has no value yet in the 'when' or a 'set' of an 'on create' trigger: the id is minted when the row is stored. Use it in a 'do call' or a write, which run after.`,
  },
  WO2040: { severity: "error", message: msg`@schemes on '${"field"}': ${"why"}.` },
  WO2041: {
    severity: "error",
    message: msg`@renamed_from takes the old name of ${"what"} as one string, e.g. @renamed_from("${"example"}")${"why"}.`,
  },
  WO2045: { severity: "error", message: msg`@check on '${"field"}' ${"why"}.` },
  // WO205x: policies (spec/policies.md)
  WO2050: {
    severity: "error",
    message: msg`'policy ${"action"}': a policy line grants read, write or delete.${"hint"}`,
  },
  WO2051: { severity: "error", message: msg`'${"name"}' in a policy condition is not a field of ${"type"}.${"hint"}` },
  WO2052: {
    severity: "error",
    message: msg`'${"path"}' cannot be followed: '${"name"}' is ${"found"}, and a policy condition goes through refs only.`,
  },
  WO2053: { severity: "error", message: msg`A policy condition cannot compare ${"left"} with ${"right"} ('${"op"}').` },
  WO2054: { severity: "error", message: msg`A policy condition ${"why"}.` },
  WO2055: { severity: "error", message: msg`policy '${"name"}': ${"why"}.${"hint"}` },
  WO2056: {
    severity: "error",
    message: msg`'${"name"}' in a policy condition is neither a field of ${"type"} nor a variant of ${"variants"}.${"hint"}`,
  },
  // WO2070–WO2079: computed fields and boolean checks (spec/language.md, "Computed fields", "Checks")
  WO2070: {
    severity: "error",
    message: msg`@materialized on '${"field"}' needs a top-level computed field whose expression wo reads, e.g. total: Int = count(self.lines) @materialized.`,
  },
  WO2071: {
    severity: "error",
    message: msg`@materialized '${"field"}' cannot be kept up to date: it reads ${"what"}; a @materialized field reads only its row's fields and the fields of rows that refer to it (a backlink).`,
  },
  WO2072: {
    severity: "error",
    message: msg`Computed field '${"field"}' reads '${"other"}', which reads it back (${"cycle"}); computed fields are evaluated each after those it reads, so they cannot read each other in a cycle.`,
  },
  WO2073: {
    severity: "error",
    message: msg`The expression of '${"field"}' calls '${"name"}': a check or a computed field calls only built-ins (count, sum, len, words, contains, latest, now), which never write.`,
  },
  // WO2060–WO2064: application events (`do emit`, spec/live.md)
  WO2060: { severity: "error", message: msg`Event name '${"name"}' cannot be used: ${"why"}.` },
  // WO2065–WO2069: jobs (`do enqueue`, spec/operations.md "Jobs")
  WO2065: { severity: "error", message: msg`Job name '${"name"}' cannot be used: ${"why"}.` },
  WO2066: {
    severity: "error",
    message: msg`The fields of job '${"name"}' do not fit fn ${"fn"}(${"params"}), which runs it: ${"why"}.`,
  },
  // WO2080–WO2084: `@search` (compiler/check/search.ts)
  WO2080: {
    severity: "error",
    message: msg`@search on '${"field"}' needs a text field (${"text"}); it is ${"type"}.`,
  },
  WO2081: {
    severity: "error",
    message: msg`@search on '${"field"}' needs a column of its own in the type's table; it is ${"what"}.`,
  },
  WO2082: {
    severity: "error",
    message: msg`@search on '${"field"}' takes no arguments: write '@search' on each field to search.`,
  },
  // WO21xx: warnings for declarations that parse but are not executed yet
  WO2103: {
    severity: "warning",
    message: msg`'fn ${"name"}' in plain type '${"type"}' is not executed; declare '${"type"}' as a class to make it a method.`,
  },
  WO2104: { severity: "warning", message: msg`Top-level ${"what"} is parsed but not executed yet.` },
  WO2105: { severity: "warning", message: msg`Unknown field annotation '@${"name"}' is ignored.` },
  WO2106: { severity: "warning", message: msg`Unknown type annotation '@${"name"}' is ignored.` },
  WO2107: {
    severity: "warning",
    message: msg`Computed default of '${"field"}' is not evaluated (${"why"}); the field is read-only and stays absent from rows.`,
  },
  WO2108: { severity: "warning", message: msg`'@${"name"}' is parsed but not enforced yet.` },
  WO2109: { severity: "warning", message: msg`'${"marker"}' block is kept as text and not interpreted.` },
  WO2111: { severity: "warning", message: msg`fn '${"name"}' is not executed: ${"reason"} (${"at"}).` },
  WO2112: { severity: "warning", message: msg`'on startup' hook is not run: ${"reason"}.` },
  WO2113: { severity: "warning", message: msg`'main' is not run: ${"reason"}.` },
  WO2114: {
    severity: "warning",
    message: msg`Method '${"name"}' is not executed, so it has no route and no tool: ${"what"} (${"at"}) is not supported yet: ${"why"}.`,
  },
  WO2110: {
    severity: "warning",
    message: msg`multi ${"target"}: '${"target"}' has ${"count"} ref fields to '${"type"}', so the relation cannot be resolved (it needs exactly one).`,
  },
  // WO3xxx: services and exposure
  WO3001: { severity: "error", message: msg`'${"name"}' is not an operation or method of '${"type"}'.${"hint"}` },
  WO3002: { severity: "error", message: msg`'${"name"}' can only be exposed by a rest service, not by '${"kind"}'.` },
  WO3003: { severity: "error", message: msg`Malformed service path '${"path"}': ${"why"}.` },
  WO3004: { severity: "error", message: msg`REST path '${"path"}' ${"clash"} '${"other"}' of type '${"type"}'.` },
  WO3005: { severity: "error", message: msg`Tool name '${"name"}' is generated twice (also by ${"other"}).` },
  WO3006: {
    severity: "error",
    message: msg`Method parameter cannot be named 'id': the receiving row's id takes that name.`,
  },
  WO3007: {
    severity: "error",
    message: msg`Unknown service kind '${"name"}' (supported: rest, mcp, graphql, native).`,
  },
  WO3008: { severity: "error", message: msg`Method '${"name"}' has the name of a built-in operation; rename it.` },
  WO3009: {
    severity: "error",
    message: msg`Relation '${"field"}' would be served as the operation '${"op"}', which is already ${"other"}; rename the field or the method.`,
  },
  // WO31xx: service warnings
  WO3101: {
    severity: "warning",
    message: msg`service mcp path '${"path"}' is ignored: the MCP endpoint is always '/mcp'.`,
  },
  WO3102: { severity: "warning", message: msg`service ${"kind"} is parsed but not served yet.` },
  WO3103: { severity: "warning", message: msg`'${"name"}' is exposed twice in this service.` },
  WO3105: {
    severity: "warning",
    message: msg`Method '${"name"}' of '${"type"}' has no route and no tool: its class has no service rest and no service mcp names it; add one to call it.`,
  },
  // WO4xxx: project files and wo.toml
  WO4001: { severity: "error", message: msg`No .wo files found in '${"dir"}'.` },
  WO4002: { severity: "error", message: msg`App directory '${"dir"}' ${"why"}.` },
  WO4003: { severity: "error", message: msg`Cannot read '${"file"}': ${"why"}.` },
  WO4004: { severity: "error", message: msg`wo.toml is not valid TOML: ${"why"}.` },
  WO4005: { severity: "error", message: msg`wo.toml key '${"key"}' must be ${"expected"}.` },
  WO4006: {
    severity: "error",
    message: msg`Path '${"path"}' contains a control or line-separator character (shown escaped); rename it: wo reads no file whose path has one.`,
  },
  WO4007: {
    severity: "error",
    message: msg`'${"dir"}' is not one app; apps found: ${"apps"}. wo works on one app at a time (a folder with its wo.toml and the .wo files below it): name one of these folders.`,
  },
  WO4008: { severity: "error", message: msg`Folder '${"path"}' ${"why"}.` },
  WO4009: {
    severity: "error",
    message: msg`'${"dir"}' is a workspace, not one app; its apps: ${"apps"}. wo ${"command"} works on one app: name one of them (wo check and wo test take the workspace).`,
  },

  // WO41xx: wo.toml warnings
  WO4101: { severity: "warning", message: msg`wo.toml key '${"key"}' is not used by wo and is ignored.${"hint"}` },
  WO4102: {
    severity: "warning",
    message: msg`wo.toml key '${"key"}' = "${"value"}" is not a PostgreSQL URL ("postgres://…"); wo ignores it and keeps its embedded database in [database] data_dir.`,
  },
  // WO5xxx: method bodies
  WO5001: { severity: "error", message: msg`Unknown name '${"name"}'.${"hint"}` },
  WO5002: { severity: "error", message: msg`Unknown type '${"name"}' in a method body.${"hint"}` },
  WO5003: { severity: "error", message: msg`'${"type"}' has no field '${"field"}'.${"hint"}` },
  WO5004: {
    severity: "error",
    message: msg`Unknown function '${"name"}' (built-ins: now(), count(set), sum(set), len(set), words(text), latest(set), contains(set, x), print(…), receive(sub)).`,
  },
  WO5005: { severity: "error", message: msg`${"name"}() takes ${"expected"} but was given ${"found"}.` },
  WO5006: { severity: "error", message: msg`${"name"}() needs ${"expected"} but was given ${"found"}.` },
  WO5007: { severity: "error", message: msg`Method '${"method"}' returns ${"expected"}, but this returns ${"found"}.` },
  WO5008: {
    severity: "error",
    message: msg`Method '${"method"}' declares no return type, so it cannot return a value; add '-> T'.`,
  },
  WO5009: { severity: "error", message: msg`Cannot assign '${"field"}' of '${"type"}': ${"why"}.` },
  WO5011: { severity: "error", message: msg`Cannot compare ${"left"} with ${"right"} using '${"op"}'.` },
  WO5012: { severity: "error", message: msg`Operator '${"op"}' needs numbers but was given ${"found"}.` },
  WO5013: { severity: "error", message: msg`select ${"type"}: '${"column"}' is ${"why"}.` },
  WO5014: {
    severity: "error",
    message: msg`Field '${"field"}' of '${"type"}' is ${"expected"}, but the value is ${"found"}.`,
  },
  WO5015: { severity: "error", message: msg`insert ${"type"} is missing required field '${"field"}'.` },
  WO5016: { severity: "error", message: msg`Field '${"field"}' is given twice.` },
  WO5017: { severity: "error", message: msg`Cannot read '.${"field"}' of ${"found"}.` },
  WO5018: {
    severity: "error",
    message: msg`Relation '${"field"}' needs exactly one 'ref ${"type"}' field in '${"target"}' to resolve it, found ${"count"}.`,
  },
  WO5019: { severity: "error", message: msg`Cannot ${"what"} ${"found"}: expected self, a row or rows, or a select.` },
  WO5020: { severity: "error", message: msg`'${"value"}' is not a variant of ${"variants"}.` },
  WO5021: {
    severity: "error",
    message: msg`Method '${"method"}' returns ${"expected"} but can reach its end without a 'return'.`,
  },
  WO5022: {
    severity: "error",
    message: msg`'${"name"}' is a method of '${"type"}'; call it on a row: 'self.${"name"}(…)'.`,
  },
  WO5023: {
    severity: "error",
    message: msg`'${"name"}' is not bound on every path that reaches here (it is bound inside an 'if'); bind it before the 'if' too.`,
  },
  WO5024: {
    severity: "error",
    message: msg`Integer ${"value"} is outside the safe integer range (±9007199254740991); wo computes integers exactly only within it.`,
  },
  WO5025: { severity: "error", message: msg`${"what"} is not supported in a method yet: ${"why"}.` },
  WO5026: { severity: "error", message: msg`${"what"} needs ${"expected"} but was given ${"found"}.` },
  WO5028: { severity: "error", message: msg`fn '${"name"}' cannot be called: it is not executed (${"reason"}).` },
  WO5029: { severity: "error", message: msg`${"what"} does not fit ${"expected"}: ${"why"}.` },
  WO5027: { severity: "error", message: msg`'${"name"}' holds ${"expected"}; it cannot be given ${"found"}.` },
  WO5030: {
    severity: "error",
    message: msg`$session has no member '${"member"}'; it has user and role.${"hint"}`,
  },
  WO5032: {
    severity: "error",
    message: msg`'as session' takes user and role; '${"name"}' is not one of them.${"hint"}`,
  },
  WO5033: { severity: "error", message: msg`'.*' ${"why"}.` },
  WO5031: {
    severity: "error",
    message: msg`'${"name"}' is not a value: the caller is read as $session.user or $session.role.${"hint"}`,
  },
  // biome-ignore lint/suspicious/noExplicitAny: each entry has its own argument names; any admits them all
} as const satisfies Record<`WO${number}`, DiagnosticDef<any>>;

export type DiagnosticCode = keyof typeof codes;
export type DiagnosticParams<C extends DiagnosticCode> = Parameters<(typeof codes)[C]["message"]>[0];
