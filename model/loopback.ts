// Which host names are this machine: the one definition shared by the Host/Origin guard and the
// places that accept plain http:// only for loopback (an `[auth]` issuer, its JWKS).

// Four decimal octets, each 0–255 without leading zeros: `127.1` or `0177.0.0.1` are other
// spellings that URL parsers widen to loopback, and a browser never sends them.
const octet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const ipv4Loopback = new RegExp(`^127\\.${octet}\\.${octet}\\.${octet}$`);

/**
 * Whether `name` (a host name without port) is loopback: `localhost`, IPv4 127.0.0.0/8 as four
 * decimal octets, or `[::1]` (`::1` bare, as a listen address is written). Whole names only:
 * `127.evil.com` and `evil.localhost` are names anyone can point anywhere.
 */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase();
  return n === "localhost" || n === "[::1]" || n === "::1" || ipv4Loopback.test(n);
}
