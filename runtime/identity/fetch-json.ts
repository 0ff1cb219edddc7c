// One bounded GET of a JSON document from an OAuth issuer (its metadata, its JWKS): a time limit,
// a size limit and no redirects, so a slow, huge or moved answer costs a request a bounded wait
// and never an unbounded buffer. A redirect is refused because the URL configured or discovered
// is the one trusted, and a redirect could lead to plain http:// elsewhere.

export interface FetchLimits {
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  maxBytes: number;
}

export const defaultFetchLimits: FetchLimits = { timeoutMs: 5000, maxBytes: 1024 * 1024 };

/** Why a document could not be had; `status` is set when the server answered (not 200). */
export class FetchFailed extends Error {
  constructor(
    readonly url: string,
    why: string,
    readonly status?: number,
  ) {
    super(`GET ${url}: ${why}`);
  }
}

/** The parsed JSON body of a 200 answer to `GET url`; FetchFailed otherwise. */
export async function fetchJson(url: string, limits: FetchLimits = defaultFetchLimits): Promise<unknown> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: "manual", headers: { accept: "application/json" } });
  } catch (error) {
    throw new FetchFailed(url, signal.aborted ? `no answer within ${limits.timeoutMs} ms` : networkReason(error));
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    const where = response.headers.get("location");
    const why =
      where !== null ? `answered ${response.status}, a redirect (not followed)` : `answered ${response.status}`;
    throw new FetchFailed(url, why, response.status);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new FetchFailed(url, `the answer is larger than ${limits.maxBytes} bytes`);
  }
  const text = await readText(response, url, limits, signal);
  try {
    return JSON.parse(text);
  } catch {
    throw new FetchFailed(url, "the answer is not JSON");
  }
}

async function readText(response: Response, url: string, limits: FetchLimits, signal: AbortSignal): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await response.body?.cancel().catch(() => {});
        throw new FetchFailed(url, `the answer is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FetchFailed) throw error;
    throw new FetchFailed(url, signal.aborted ? `no answer within ${limits.timeoutMs} ms` : networkReason(error));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** `fetch failed` says nothing; its cause (ECONNREFUSED, ENOTFOUND, a TLS error) says what to fix. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
