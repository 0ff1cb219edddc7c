// `GET /_wo/audit`: the audit trail over HTTP (spec/operations.md, "Audit trail"), for the owner
// only. Query: `since` (ISO-8601 time or a duration ago: `1h`), `user`, `limit` (1–1000,
// default 100) and `cursor` (the `nextCursor` of the previous page). Answers
// `{ items, nextCursor? }`, oldest first, like a list. Who may read it is one function,
// `mayReadAudit`, asked with the request's principal (absent: the owner).

import { Hono, type Context } from "hono";
import { durationForm, sinceTime } from "../../model/duration.js";
import { isOwner, type Principal } from "../../model/principal.js";
import type { AuditQuery, Store } from "../../model/store.js";
import { problemResponse } from "./problem.js";

export const auditPath = "/_wo/audit";

/** Only the owner reads the trail: it names every caller. */
export function mayReadAudit(principal: Principal | undefined): boolean {
  return isOwner(principal);
}

export interface AuditRouteDeps {
  store: Pick<Store, "readAudit">;
  /** The request's principal, as the edge resolved it; absent: the owner. */
  principalOf?: (c: Context) => Principal | undefined;
}

const maxLimit = 1000;
const seqText = /^[1-9][0-9]{0,15}$/;

export function createAuditRoutes(deps: AuditRouteDeps): Hono {
  const app = new Hono({ strict: false });
  app.get(auditPath, async (c) => {
    const principal = deps.principalOf?.(c);
    if (!mayReadAudit(principal))
      return problemResponse(c, "forbidden", "Only the app's owner may read the audit trail.");
    const q = new URL(c.req.url).searchParams;
    const query: AuditQuery = { limit: 100 };
    const since = q.get("since");
    if (since !== null) {
      const at = sinceTime(since, Date.now());
      if (at === null) return invalid(c, "since", `must be an ISO-8601 time or ${durationForm} ago`);
      query.since = at;
    }
    const user = q.get("user");
    if (user !== null) query.user = user;
    const limit = q.get("limit");
    if (limit !== null) {
      const n = Number(limit);
      if (!/^[0-9]+$/.test(limit) || n < 1 || n > maxLimit)
        return invalid(c, "limit", `must be an integer from 1 to ${maxLimit}`);
      query.limit = n;
    }
    const cursor = q.get("cursor");
    if (cursor !== null) {
      if (!seqText.test(cursor)) return invalid(c, "cursor", "must be the nextCursor of a previous page");
      query.after = Number(cursor);
    }
    const { entries, more } = await deps.store.readAudit(query);
    const last = entries[entries.length - 1];
    return c.json(more && last ? { items: entries, nextCursor: String(last.seq) } : { items: entries });
  });
  return app;
}

function invalid(c: Context, param: string, message: string): Response {
  return problemResponse(c, "invalid_input", `'${param}' ${message}.`, [{ path: `/${param}`, message }]);
}
