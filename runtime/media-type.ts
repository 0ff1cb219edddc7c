// The media type of a Content-Type header value (RFC 9110 §8.3.1: `type "/" subtype`, then
// optional `; name=value` parameters). Compared as parsed, never as a substring: a substring
// test takes `text/plain; application/json` or `application/jsonx` for JSON.

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const essenceSyntax = new RegExp(`^${TOKEN}/${TOKEN}$`);

/**
 * `type/subtype`, lower-cased (media types are case-insensitive), or undefined when the value
 * does not start with one. Parameters (`charset=utf-8`) are allowed and not interpreted.
 */
export function mediaTypeOf(contentType: string): string | undefined {
  const semi = contentType.indexOf(";");
  const essence = (semi === -1 ? contentType : contentType.slice(0, semi)).trim();
  return essenceSyntax.test(essence) ? essence.toLowerCase() : undefined;
}
