// The REST routes' paths as one table, matched a segment at a time: `/api/posts`,
// `/api/posts/:id`, `/api/posts/:id/tags/:tag_id`. A segment matches a literal before a
// parameter, and a parameter (`:name`) matches any one non-empty segment; when a literal leads
// nowhere the parameter is tried, so `/api/posts/me/tags` finds `/api/posts/:id/tags` beside
// `/api/posts/me`. That is the order hono's router gave the same routes, registered one by one;
// building its matcher (one regular expression over every route) took a quarter of a second on
// the first request of a 1,000-type app, while this table is built as the routes are added and
// a match costs the path's segments (spec/architecture.md, "Build and start-up cost").
//
// Paths are matched as hono gives them (`c.req.path`: percent-decoded except `%2F` and `%25`,
// one trailing slash removed by `strict: false`); a parameter's value is then percent-decoded as
// hono's `c.req.param` decodes it.

import { tryDecodeURIComponent } from "hono/utils/url";

interface Node<T> {
  literals: Map<string, Node<T>>;
  param?: Node<T>;
  /** The pattern ending here: its value and its parameters' names, in path order. */
  end?: { value: T; names: string[] };
}

export interface PathMatch<T> {
  value: T;
  /** Each parameter of the pattern, decoded: `{ id: "7" }`. */
  params: Record<string, string>;
}

export class PathTable<T> {
  private readonly root: Node<T> = { literals: new Map() };

  /** Adds `pattern`; a pattern added twice keeps its first value. */
  add(pattern: string, value: T): void {
    let node = this.root;
    const names: string[] = [];
    for (const segment of segmentsOf(pattern)) {
      if (segment.startsWith(":")) {
        names.push(segment.slice(1));
        node = node.param ??= { literals: new Map() };
      } else {
        let next = node.literals.get(segment);
        if (next === undefined) node.literals.set(segment, (next = { literals: new Map() }));
        node = next;
      }
    }
    node.end ??= { value, names };
  }

  /** The pattern `path` matches, with its parameters; undefined when none does. */
  match(path: string): PathMatch<T> | undefined {
    const segments = segmentsOf(path);
    const values: string[] = [];
    const end = find(this.root, segments, 0, values);
    if (end === undefined) return undefined;
    const params: Record<string, string> = {};
    end.names.forEach((name, i) => {
      params[name] = tryDecodeURIComponent(values[i]!);
    });
    return { value: end.value, params };
  }
}

/** `/api/posts/7` → ["api", "posts", "7"]; `/` → []. */
function segmentsOf(path: string): string[] {
  return path === "/" ? [] : path.slice(1).split("/");
}

function find<T>(node: Node<T>, segments: string[], at: number, values: string[]): Node<T>["end"] {
  if (at === segments.length) return node.end;
  const segment = segments[at]!;
  const literal = node.literals.get(segment);
  const found = literal && find(literal, segments, at + 1, values);
  if (found !== undefined) return found;
  if (node.param === undefined || segment === "") return undefined;
  values.push(segment);
  const viaParam = find(node.param, segments, at + 1, values);
  if (viaParam === undefined) values.pop();
  return viaParam;
}
