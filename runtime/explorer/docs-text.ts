// The OpenAPI document as /docs shows it. Swagger UI renders every `description` as Markdown,
// HTML included, so a doc comment such as `-- <img src=x onerror=…>` would become markup on the
// page (DOMPurify drops the handler, not the element). The page gets a copy of the build's
// document whose descriptions are Markdown that renders to exactly their text: each ASCII
// punctuation character backslash-escaped (CommonMark §2.4 lets any of them be), which makes
// `<`, `&`, `*`, `[` and `` ` `` literal. `/openapi.json` and MCP keep the text as written:
// those are data for programs, not a page.

/** `text` as Markdown that renders to that text, HTML and Markdown syntax alike shown as typed. */
export function markdownOfText(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, "\\$&");
}

/**
 * A copy of an OpenAPI document with every string `description` as markdownOfText. Only the
 * keyword: a property *named* `description` maps to a schema object and is walked into.
 */
export function docsDocument(openapi: unknown): unknown {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = key === "description" && typeof v === "string" ? markdownOfText(v) : walk(v);
    }
    return out;
  };
  return walk(openapi);
}
