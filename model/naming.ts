// The one place generated names come from: tool names, schema keys, default table names
// (spec/schemas.md, "MCP tools"; spec/language.md, "Storage").

/**
 * `BlogPost` → `blog_post`, `HTTPRoute` → `http_route`, `StockItem2` → `stock_item2`.
 * An underscore goes before an uppercase letter that follows a lowercase letter or digit, and
 * before an uppercase letter that starts a new word after an acronym (followed by lowercase).
 */
export function snakeCase(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]!;
    const prev = name[i - 1];
    const next = name[i + 1];
    const isUpper = ch >= "A" && ch <= "Z";
    if (isUpper && prev !== undefined && prev !== "_") {
      const prevIsLowerOrDigit = (prev >= "a" && prev <= "z") || (prev >= "0" && prev <= "9");
      const prevIsUpper = prev >= "A" && prev <= "Z";
      const nextIsLower = next !== undefined && next >= "a" && next <= "z";
      if (prevIsLowerOrDigit || (prevIsUpper && nextIsLower)) out += "_";
    }
    out += ch.toLowerCase();
  }
  return out;
}

/** The MCP tool name of a CRUD op or method of a type: `blog_post_list`, `product_set_price`. */
export function toolName(typeName: string, op: string): string {
  return `${snakeCase(typeName)}_${op}`;
}

/**
 * The fields of link type `L link A -> B` that store its endpoints: `snake(A)` and `snake(B)`
 * (`Tagging link Post -> Tag` → `post`, `tag`); a link between rows of one type names them
 * `from_<snake>` and `to_<snake>` (`from_article`, `to_article`).
 */
export function linkEndpointFields(from: string, to: string): { fromField: string; toField: string } {
  if (from === to) return { fromField: `from_${snakeCase(from)}`, toField: `to_${snakeCase(to)}` };
  return { fromField: snakeCase(from), toField: snakeCase(to) };
}
