// The REST routes' path table (runtime/rest/path-table.ts): which pattern a request path finds,
// with what parameters, in the order hono's router found them when each route was its own.
import { describe, expect, it } from "vitest";
import { PathTable } from "../../runtime/rest/path-table.js";

function table(...patterns: string[]): PathTable<string> {
  const t = new PathTable<string>();
  for (const p of patterns) t.add(p, p);
  return t;
}

describe("PathTable", () => {
  const routes = table(
    "/api/posts",
    "/api/posts/:id",
    "/api/posts/me",
    "/api/posts/live",
    "/api/posts/:id/tags",
    "/api/posts/:id/tags/:tag_id",
    "/",
  );

  it("finds literal paths and a parameter's segment", () => {
    expect(routes.match("/api/posts")).toEqual({ value: "/api/posts", params: {} });
    expect(routes.match("/api/posts/7")).toEqual({ value: "/api/posts/:id", params: { id: "7" } });
    expect(routes.match("/api/posts/7/tags/3")).toEqual({
      value: "/api/posts/:id/tags/:tag_id",
      params: { id: "7", tag_id: "3" },
    });
    expect(routes.match("/")).toEqual({ value: "/", params: {} });
  });

  it("prefers a literal segment, and falls back to the parameter where the literal leads nowhere", () => {
    expect(routes.match("/api/posts/me")?.value).toBe("/api/posts/me");
    expect(routes.match("/api/posts/live")?.value).toBe("/api/posts/live");
    expect(routes.match("/api/posts/me/tags")).toEqual({ value: "/api/posts/:id/tags", params: { id: "me" } });
  });

  it("matches no path that is longer, shorter or has an empty segment where a parameter is", () => {
    for (const path of ["/api", "/api/post", "/api/posts/7/tags/3/x", "/api/posts/", "/api/posts//tags", "/API/posts"])
      expect(routes.match(path), path).toBeUndefined();
  });

  it("decodes a parameter's percent-escapes as hono's c.req.param does, keeping a bad one as sent", () => {
    expect(routes.match("/api/posts/%37")?.params).toEqual({ id: "7" });
    expect(routes.match("/api/posts/a%2Fb")?.params).toEqual({ id: "a/b" });
    expect(routes.match("/api/posts/%E0%A4%A")?.params).toEqual({ id: "%E0%A4%A" });
  });

  it("keeps the first value of a pattern added twice, and tells patterns apart by shape, not parameter name", () => {
    const t = new PathTable<number>();
    t.add("/a/:id", 1);
    t.add("/a/:id", 2);
    t.add("/a/:other/b", 3);
    expect(t.match("/a/x")).toEqual({ value: 1, params: { id: "x" } });
    expect(t.match("/a/x/b")).toEqual({ value: 3, params: { other: "x" } });
  });
});
