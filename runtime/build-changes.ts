// What differs between the build serving and the one replacing it (`wo run --watch`): the one
// line printed after a swap ("tools +note_archive ~note_create; routes +POST /api/notes/:id/archive;
// types ~Note"), and whether wo.toml's settings changed, which apply only at the next start.

import { manifestTool } from "../model/build-contract.js";
import type { LoadedBuild } from "./load-build.js";
import { restEndpoints } from "./rest/routes.js";

export interface NameChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface BuildChanges {
  tools: NameChanges;
  /** `METHOD /path`; a route whose operation changed counts as changed. */
  routes: NameChanges;
  types: NameChanges;
  /** wo.toml's settings ([server], [database], [mcp], …) differ: they are read at start only. */
  settings: boolean;
}

export function buildChanges(before: LoadedBuild, after: LoadedBuild): BuildChanges {
  const tools = (b: LoadedBuild) =>
    new Map(b.catalog.operations.filter((o) => o.mcp).map((o) => [o.name, JSON.stringify(manifestTool(o))]));
  const routes = (b: LoadedBuild) => new Map(restEndpoints(b.catalog).map((e) => [`${e.method} ${e.path}`, e.op]));
  const types = (b: LoadedBuild) => new Map(b.catalog.types.map((t) => [t.name, JSON.stringify(t)]));
  return {
    tools: compare(tools(before), tools(after)),
    routes: compare(routes(before), routes(after)),
    types: compare(types(before), types(after)),
    settings: JSON.stringify(before.catalog.config) !== JSON.stringify(after.catalog.config),
  };
}

/** Names present in one map only, or present in both with different values; each list sorted. */
function compare(before: Map<string, string>, after: Map<string, string>): NameChanges {
  const added = [...after.keys()].filter((k) => !before.has(k)).sort();
  const removed = [...before.keys()].filter((k) => !after.has(k)).sort();
  const changed = [...after.keys()].filter((k) => before.has(k) && before.get(k) !== after.get(k)).sort();
  return { added, removed, changed };
}

/** `tools +a -b ~c; routes +POST /x; types ~T`, or that none of them changed. */
export function describeChanges(c: BuildChanges): string {
  const parts: string[] = [];
  for (const [label, n] of [
    ["tools", c.tools],
    ["routes", c.routes],
    ["types", c.types],
  ] as const) {
    const items = [...n.added.map((x) => `+${x}`), ...n.removed.map((x) => `-${x}`), ...n.changed.map((x) => `~${x}`)];
    if (items.length > 0) parts.push(`${label} ${items.join(", ")}`);
  }
  return parts.length > 0 ? parts.join("; ") : "no change to tools, routes or types";
}
