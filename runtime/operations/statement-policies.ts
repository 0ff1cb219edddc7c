// `as session { … }` in tests (spec/policies.md, "In tests"): each insert, update and delete
// statement of the block is held to the policies of its table, as the same write through REST
// or MCP would be — insert: the new row must satisfy a `write` line; update: the old row must be
// readable and writable and the new one still writable; delete: the old row readable and
// deletable. A refusal throws the operation's error (`expect_abort` catches it). Outside such a
// block a body writes with its operation's authority and nothing here runs.

import type { AppContract } from "../../model/build-contract.js";
import type { CatalogType } from "../../model/app.js";
import { OperationError } from "../../model/errors.js";
import type { PolicyAction } from "../../model/policy.js";
import type { Principal } from "../../model/principal.js";
import type { Store, StoreTx } from "../../model/store.js";
import { holds } from "./policy.js";
import { hasPolicies, rowCondition } from "./row-policy.js";
import { withWrites } from "./tx-wrapper.js";
import { statementPrincipal } from "./session.js";

export function withStatementPolicies(store: Store, catalog: AppContract): Store {
  const byTable = new Map(catalog.types.filter(hasPolicies).map((t) => [t.table, t] as const));
  if (byTable.size === 0) return store;
  const bypass = catalog.bypassPolicies ?? [];
  const condition = (t: CatalogType, action: PolicyAction, p: Principal) => rowCondition(t, action, p, bypass);

  const checked = (inner: StoreTx): StoreTx => {
    /** The policed type and the block's principal, when this statement is to be checked. */
    const policed = (table: string) => {
      const type = byTable.get(table);
      const p = type && statementPrincipal();
      return type && p ? { type, p } : undefined;
    };
    const must = async (t: CatalogType, id: number, action: PolicyAction, p: Principal, what: string) => {
      if (!(await holds(inner, t.table, id, condition(t, "read", p))))
        throw new OperationError("not_found", `No ${t.name} with id ${id}.`);
      if (action !== "read" && !(await holds(inner, t.table, id, condition(t, action, p))))
        throw new OperationError(
          "forbidden",
          `The session (role ${JSON.stringify(p.role)}, user ${JSON.stringify(p.user)}) may not ${what} ${t.name} ${id}: no policy line grants ${action} on it.`,
        );
    };
    return withWrites(inner, {
      async insert(table, values) {
        const at = policed(table);
        const row = await inner.insert(table, values);
        if (at && !(await holds(inner, table, row.id as number, condition(at.type, "write", at.p))))
          throw new OperationError(
            "forbidden",
            `The session (role ${JSON.stringify(at.p.role)}, user ${JSON.stringify(at.p.user)}) may not insert this ${at.type.name}: the new row satisfies no policy line granting write.`,
          );
        return row;
      },
      async update(table, id, patch) {
        const at = policed(table);
        if (at) await must(at.type, id, "write", at.p, "update");
        const row = await inner.update(table, id, patch);
        if (at && row) await must(at.type, id, "write", at.p, "update");
        return row;
      },
      async delete(table, id) {
        const at = policed(table);
        if (at) await must(at.type, id, "delete", at.p, "delete");
        return inner.delete(table, id);
      },
    });
  };
  return { ...store, write: (fn, options) => store.write((tx) => fn(checked(tx)), options) };
}
