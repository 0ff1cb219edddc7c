// What differs between the build serving and the one replacing it (`wo run --watch`): the one
// line printed after a swap ("tools +note_archive ~note_create; routes +POST /api/notes/:id/archive;
// types ~Note"), and whether wo.toml's settings changed, which apply only at the next start.

import { manifestTool } from "../model/build-contract.js";
import { jsonDigest } from "./json-digest.js";
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
  const [was, now] = [facesOf(before), facesOf(after)];
  return {
    tools: compare(was.tools, now.tools),
    routes: compare(was.routes, now.routes),
    types: compare(was.types, now.types),
    settings: was.settings !== now.settings,
  };
}

/** What buildChanges compares of one build: each tool, route and type as a digest of its text. */
interface BuildFaces {
  tools: Map<string, string>;
  routes: Map<string, string>;
  types: Map<string, string>;
  settings: string;
}

/**
 * Made once per build and kept while it lives: at a swap the serving build's were made when
 * it came in, so each reload stringifies only the new build's tools (megabytes for 400 types).
 */
const faces = new WeakMap<LoadedBuild, BuildFaces>();

function facesOf(b: LoadedBuild): BuildFaces {
  let made = faces.get(b);
  if (made === undefined) {
    made = {
      tools: new Map(b.catalog.operations.filter((o) => o.mcp).map((o) => [o.name, jsonDigest(manifestTool(o))])),
      routes: new Map(restEndpoints(b.catalog).map((e) => [`${e.method} ${e.path}`, e.op])),
      types: new Map(b.catalog.types.map((t) => [t.name, jsonDigest(t)])),
      settings: jsonDigest(b.catalog.config),
    };
    faces.set(b, made);
  }
  return made;
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
