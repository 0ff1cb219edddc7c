// runtime/operations/row-policy.ts: a type's policy lines resolved for one caller into the
// RowCondition every surface filters and checks rows by (spec/policies.md). Pure: grants in,
// a condition out.

import { describe, expect, it } from "vitest";
import type { BypassPolicy, PolicyExpr, PolicyGrant } from "../../model/policy.js";
import { anonymousPrincipal, ownerPrincipal, type Principal } from "../../model/principal.js";
import { bindSession, hasPolicies, mayAttempt, rowCondition } from "../../runtime/operations/row-policy.js";

const source = { file: "app.wo", line: 1, col: 1 };
const grant = (g: Omit<PolicyGrant, "text" | "source">): PolicyGrant => ({ ...g, text: "policy …", source });
const typeWith = (...policies: PolicyGrant[]) => ({ name: "Post", policies });

const alice: Principal = { name: "alice", user: "7", role: "Editor", via: "token" };
const bob: Principal = { name: "bob", user: "8", role: null, via: "jwt" };

const published: PolicyExpr = { kind: "truthy", value: { kind: "field", path: ["published"] } };
const ownPost: PolicyExpr = {
  kind: "compare",
  op: "==",
  left: { kind: "field", path: ["author"] },
  right: { kind: "session", member: "user" },
};

describe("rowCondition", () => {
  it("the owner bypasses every line, even a type that grants nothing", () => {
    const type = typeWith(grant({ action: "read", grantee: { kind: "role", role: "Nobody" } }));
    for (const owner of [ownerPrincipal, undefined])
      for (const action of ["read", "write", "delete"] as const)
        expect(rowCondition(type, action, owner)).toEqual({ kind: "true" });
  });

  it("a type without lines: every row for an authenticated caller, none for anonymous", () => {
    for (const type of [{ name: "Post" } as ReturnType<typeof typeWith>, typeWith()]) {
      expect(hasPolicies(type)).toBe(false);
      expect(rowCondition(type, "write", alice)).toEqual({ kind: "true" });
      expect(rowCondition(type, "delete", bob)).toEqual({ kind: "true" });
      // Before policies an anonymous caller was refused everything; a type without lines keeps that.
      expect(rowCondition(type, "read", anonymousPrincipal)).toEqual({ kind: "false" });
      expect(mayAttempt(type, "read", anonymousPrincipal)).toBe(false);
    }
  });

  it("default deny: an action no line grants is no row, for everyone but the owner", () => {
    const type = typeWith(grant({ action: "read", grantee: { kind: "anyone" } }));
    expect(hasPolicies(type)).toBe(true);
    for (const p of [alice, bob, anonymousPrincipal]) {
      expect(rowCondition(type, "write", p)).toEqual({ kind: "false" });
      expect(mayAttempt(type, "delete", p)).toBe(false);
      expect(mayAttempt(type, "read", p)).toBe(true);
    }
  });

  it("grantees: anyone includes anonymous, authenticated excludes it, a role needs that role", () => {
    const anyone = typeWith(grant({ action: "write", grantee: { kind: "anyone" } }));
    const authenticated = typeWith(grant({ action: "write", grantee: { kind: "authenticated" } }));
    const editors = typeWith(grant({ action: "write", grantee: { kind: "role", role: "Editor" } }));
    expect(mayAttempt(anyone, "write", anonymousPrincipal)).toBe(true);
    expect(mayAttempt(authenticated, "write", anonymousPrincipal)).toBe(false);
    expect(mayAttempt(authenticated, "write", bob)).toBe(true);
    expect(mayAttempt(editors, "write", alice)).toBe(true);
    expect(mayAttempt(editors, "write", bob)).toBe(false);
    // An anonymous principal never holds a role, whatever it claims.
    expect(mayAttempt(editors, "write", { ...anonymousPrincipal, role: "Editor" })).toBe(false);
  });

  it("the lines granting an action are ORed, a line without `when` is every row", () => {
    const type = typeWith(
      grant({ action: "read", grantee: { kind: "anyone" }, when: published }),
      grant({ action: "read", grantee: { kind: "authenticated" }, when: ownPost }),
      grant({ action: "read", grantee: { kind: "role", role: "Editor" } }),
      grant({ action: "write", grantee: { kind: "authenticated" }, when: ownPost }),
    );
    expect(rowCondition(type, "read", anonymousPrincipal)).toEqual({ kind: "truthy", path: ["published"] });
    expect(rowCondition(type, "read", bob)).toEqual({
      kind: "or",
      items: [
        { kind: "truthy", path: ["published"] },
        { kind: "compare", op: "==", left: { kind: "field", path: ["author"] }, right: { kind: "value", value: "8" } },
      ],
    });
    expect(rowCondition(type, "read", alice)).toEqual({ kind: "true" });
    expect(rowCondition(type, "write", alice)).toEqual({
      kind: "compare",
      op: "==",
      left: { kind: "field", path: ["author"] },
      right: { kind: "value", value: "7" },
    });
  });

  it("a `when` naming a session value the caller lacks grants nothing (never compares with null)", () => {
    const type = typeWith(
      grant({ action: "write", grantee: { kind: "anyone" }, when: ownPost }),
      grant({ action: "read", grantee: { kind: "anyone" }, when: { kind: "or", items: [published, ownPost] } }),
    );
    expect(rowCondition(type, "write", anonymousPrincipal)).toEqual({ kind: "false" });
    expect(mayAttempt(type, "write", anonymousPrincipal)).toBe(false);
    // The whole line is dropped, not just the half that names the missing value.
    expect(rowCondition(type, "read", anonymousPrincipal)).toEqual({ kind: "false" });
    expect(bindSession(ownPost, { ...bob, user: null })).toBeUndefined();
    const roleIs: PolicyExpr = {
      kind: "compare",
      op: "==",
      left: { kind: "session", member: "role" },
      right: { kind: "literal", value: "Editor" },
    };
    expect(bindSession(roleIs, bob)).toBeUndefined();
    expect(bindSession({ kind: "not", item: roleIs }, alice)).toEqual({
      kind: "not",
      item: {
        kind: "compare",
        op: "==",
        left: { kind: "value", value: "Editor" },
        right: { kind: "value", value: "Editor" },
      },
    });
  });

  it("`self` is the row's id", () => {
    const self: PolicyExpr = {
      kind: "compare",
      op: "==",
      left: { kind: "self" },
      right: { kind: "session", member: "user" },
    };
    const type = typeWith(grant({ action: "write", grantee: { kind: "authenticated" }, when: self }));
    expect(rowCondition(type, "write", alice)).toEqual({
      kind: "compare",
      op: "==",
      left: { kind: "field", path: ["id"] },
      right: { kind: "value", value: "7" },
    });
  });

  it("a skip-row-filters block lifts the `when` of reads it applies to, and of reads only", () => {
    const type = typeWith(
      grant({ action: "read", grantee: { kind: "authenticated" }, when: published }),
      grant({ action: "write", grantee: { kind: "authenticated" }, when: ownPost }),
      grant({ action: "delete", grantee: { kind: "authenticated" }, when: ownPost }),
    );
    const admins: BypassPolicy = {
      name: "admins_see_all",
      appliesTo: ["*"],
      when: {
        kind: "compare",
        op: "==",
        left: { kind: "session", member: "role" },
        right: { kind: "literal", value: "Editor" },
      },
      effect: "skip-row-filters",
      source,
    };
    expect(rowCondition(type, "read", alice, [admins])).toEqual({ kind: "true" });
    expect(rowCondition(type, "read", bob, [admins])).toEqual({ kind: "truthy", path: ["published"] });
    expect(rowCondition(type, "write", alice, [admins]).kind).toBe("compare");
    expect(rowCondition(type, "delete", alice, [admins]).kind).toBe("compare");
    // Only the types it names; never for anonymous; never granting an action no line grants.
    expect(rowCondition(type, "read", alice, [{ ...admins, appliesTo: ["Comment"] }]).kind).toBe("truthy");
    expect(rowCondition(type, "read", alice, [{ ...admins, appliesTo: ["Post"] }])).toEqual({ kind: "true" });
    const open = { ...admins, when: undefined };
    expect(rowCondition(type, "read", bob, [open])).toEqual({ kind: "true" });
    const anyoneReads = typeWith(grant({ action: "read", grantee: { kind: "anyone" }, when: published }));
    expect(rowCondition(anyoneReads, "read", anonymousPrincipal, [open]).kind).toBe("truthy");
    const editorsOnly = typeWith(grant({ action: "read", grantee: { kind: "role", role: "Editor" } }));
    expect(rowCondition(editorsOnly, "read", bob, [open])).toEqual({ kind: "false" });
  });
});
