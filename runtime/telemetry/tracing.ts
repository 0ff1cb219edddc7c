// OpenTelemetry traces of one instance (spec/operations.md, "Traces"): a server span per HTTP
// request (a W3C `traceparent` from the caller is its parent), a span per MCP method and per
// operation, a child span per store write transaction; exported over OTLP/HTTP (JSON) in batches.
// Loaded only when traces are configured (telemetry.ts).
//
// The spans are made here by a recorder of wo's own, not by the OpenTelemetry SDK: one class
// with one shape for every span, ids cut from a pool of random bytes, times from one clock.
// The SDK's spans, contexts and span processor in the server's thread made even the requests
// the sampler left out slower (bench/telemetry/run.mjs: traces sampled at 0.01 cost far more
// than their own spans). Finished spans go to the export worker (export-worker.ts) in small
// batches; there the SDK's BatchSpanProcessor and OTLP/HTTP exporter take them, so the OTEL_BSP_*
// and OTEL_EXPORTER_OTLP_* variables keep their meaning.
//
// No context manager is installed: the active trace is handed down explicitly (the request's
// on the IncomingMessage, a call's in CallContext.trace), because an AsyncLocalStorage would
// switch on node's promise hooks, which cost every promise of the process — a third of the
// REST GET throughput on Node 20 — even for requests not sampled.

import { randomFillSync } from "node:crypto";
// The clock by import: the global `performance` is a getter, called on each use (per request).
import { performance } from "node:perf_hooks";
import type { IncomingMessage } from "node:http";
import type { TelemetryConfig } from "../../model/app.js";
import { type RecordedSpan, startSpanExport } from "./export-worker.js";

/** What wo does with a span while it is open. */
export interface SpanHandle {
  updateName(name: string): void;
  setAttribute(key: string, value: string | number | boolean): void;
  /** `code` as OpenTelemetry's SpanStatusCode: 2 is an error. */
  setStatus(status: { code: number; message?: string }): void;
  end(): void;
}

type Attributes = Record<string, string | number | boolean>;

export interface Tracing {
  /**
   * Starts the server span of an HTTP request (its parent: the request's `traceparent`, when
   * valid): the span, which the caller ends when the answer is done, and the trace its
   * children join. Undefined for a request the sampler leaves out.
   */
  serveRequest(req: IncomingMessage): { span: SpanHandle; trace: unknown } | undefined;
  /**
   * Runs `fn` in a new child span of `parent` (a trace serveRequest or inSpan gave); the span
   * ends when `fn` settles, and `fn` gets the trace its own children join. Without a parent
   * (a request left out by the sampler, a call from no request) `fn` runs as it is.
   */
  inSpan<T>(
    name: string,
    kind: "internal" | "client",
    attributes: Attributes,
    parent: unknown,
    fn: (span: SpanHandle, trace: unknown) => Promise<T>,
  ): Promise<T>;
  /** Exports the spans not sent yet (within a few seconds) and stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  config?: TelemetryConfig;
  app: { name: string; version: string };
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

const flushMillis = 5_000;
/** Spans handed to the export worker at once, at the latest `handOverMillis` after the first. */
const handOverSpans = 512;
const handOverMillis = 500;

// OpenTelemetry's SpanKind values (@opentelemetry/api), which the OTLP encoding expects.
const kindInternal = 0;
const kindServer = 1;
const kindClient = 2;

/** The caller's span, from a valid `traceparent` (and its `tracestate`). */
interface RemoteParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
  traceState: string | undefined;
}

/**
 * A span being recorded, then its plain data for the export worker (structured clone copies
 * the fields). Every field is set in the constructor, so all spans share one shape.
 */
class Span implements SpanHandle, RecordedSpan {
  endTime = 0;
  statusCode = 0;
  statusMessage: string | undefined = undefined;
  constructor(
    private readonly recorder: Recorder | undefined,
    public name: string,
    public readonly kind: number,
    public readonly traceId: string,
    public readonly spanId: string,
    public readonly parentSpanId: string | undefined,
    public readonly parentRemote: boolean,
    public readonly traceState: string | undefined,
    public readonly attributes: Attributes,
    public readonly startTime: number,
  ) {}
  updateName(name: string): void {
    this.name = name;
  }
  setAttribute(key: string, value: string | number | boolean): void {
    this.attributes[key] = value;
  }
  setStatus(status: { code: number; message?: string }): void {
    this.statusCode = status.code;
    this.statusMessage = status.message;
  }
  end(): void {
    if (this.endTime !== 0) return;
    this.endTime = now();
    this.recorder?.finished(this);
  }
  /** What crosses to the worker: the span without its recorder. */
  plain(): RecordedSpan {
    return {
      name: this.name,
      kind: this.kind,
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      parentRemote: this.parentRemote,
      traceState: this.traceState,
      attributes: this.attributes,
      startTime: this.startTime,
      endTime: this.endTime,
      statusCode: this.statusCode,
      statusMessage: this.statusMessage,
    };
  }
}

/** Wall-clock milliseconds (fractional) from the monotonic clock, as the SDK reckons them. */
const now = () => performance.timeOrigin + performance.now();

/** What `fn` of inSpan gets outside a recorded trace: a span that records nothing. */
const unrecorded: SpanHandle = new Span(undefined, "", kindInternal, "", "", undefined, false, undefined, {}, 0);

/** Finished spans, handed to the export worker in batches. */
class Recorder {
  private pending: RecordedSpan[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly send: (spans: RecordedSpan[]) => void) {}
  finished(span: Span): void {
    this.pending.push(span.plain());
    if (this.pending.length >= handOverSpans) this.handOver();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.handOver(), handOverMillis);
      this.timer.unref();
    }
  }
  handOver(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const spans = this.pending;
    this.pending = [];
    this.send(spans);
  }
}

/**
 * Random ids, hex, cut from a pool of random bytes refilled when used up: one system call per
 * 4096 bytes instead of one per id. An all-zero id is invalid in W3C trace context: drawn again.
 */
export class IdPool {
  private readonly bytes = Buffer.alloc(4096);
  private at = this.bytes.length;
  /** `size` random bytes, as 2·size hex digits, never all zeros. */
  next(size: 8 | 16): string {
    for (;;) {
      if (this.at + size > this.bytes.length) {
        randomFillSync(this.bytes);
        this.at = 0;
      }
      const id = this.bytes.toString("hex", this.at, this.at + size);
      this.at += size;
      if (!allZeros.test(id)) return id;
    }
  }
}
const allZeros = /^0+$/;

/**
 * Whether a root (no caller's trace) is kept, and whether a caller's sampled flag decides
 * instead: the samplers OTEL_TRACES_SAMPLER names (the SDK's defaults and fallbacks).
 */
interface SamplingRule {
  root: () => boolean;
  followParent: boolean;
}

function samplingRule(config: TelemetryConfig, env: NodeJS.ProcessEnv, log: (line: string) => void): SamplingRule {
  const always = () => true;
  const never = () => false;
  const ratio = (r: number) => (r >= 1 ? always : r <= 0 ? never : () => Math.random() < r);
  // `sample_ratio` of wo.toml: r of the requests without a caller's trace, and a caller's flag followed.
  if (config.sampleRatio !== undefined) return { root: ratio(config.sampleRatio), followParent: true };
  const arg = () => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    const r = raw ? Number(raw) : Number.NaN;
    if (Number.isFinite(r) && r >= 0 && r <= 1) return r;
    log(`telemetry: OTEL_TRACES_SAMPLER_ARG "${raw ?? ""}" is not a ratio in [0, 1]; using 1`);
    return 1;
  };
  const name = env.OTEL_TRACES_SAMPLER?.trim() || "parentbased_always_on";
  switch (name) {
    case "always_on":
      return { root: always, followParent: false };
    case "always_off":
      return { root: never, followParent: false };
    case "traceidratio":
      return { root: ratio(arg()), followParent: false };
    case "parentbased_always_on":
      return { root: always, followParent: true };
    case "parentbased_always_off":
      return { root: never, followParent: true };
    case "parentbased_traceidratio":
      return { root: ratio(arg()), followParent: true };
    default:
      log(`telemetry: OTEL_TRACES_SAMPLER "${name}" is not known; using parentbased_always_on`);
      return { root: always, followParent: true };
  }
}

export async function createTracing(options: TracingOptions): Promise<Tracing> {
  const { config = {}, app, env } = options;
  const resource = {
    "service.name": config.serviceName ?? env.OTEL_SERVICE_NAME ?? app.name,
    "service.version": app.version,
  };
  // The wo.toml endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is; without it the
  // exporter reads the OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT variables itself. It sends from a
  // worker thread (export-worker.ts): from this one, its HTTP client slowed the server's.
  const exporter = startSpanExport({
    url: config.otlpEndpoint !== undefined ? tracesUrl(config.otlpEndpoint) : undefined,
    resource,
    scope: { name: "wo", version: app.version },
    env,
    log: options.log,
  });
  const recorder = new Recorder((spans) => exporter.send(spans));
  const ids = new IdPool();
  const rule = samplingRule(config, env, options.log);

  return {
    serveRequest(req) {
      const headers = req.headers;
      const traceparent = headers.traceparent;
      const parent = typeof traceparent === "string" ? remoteParent(traceparent, headers.tracestate) : undefined;
      // A request left out costs one random number (or a look at its caller's sampled flag)
      // and makes no span at all.
      if (!(parent !== undefined && rule.followParent ? parent.sampled : rule.root())) return undefined;
      const method = req.method ?? "GET";
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const span = new Span(
        recorder,
        method,
        kindServer,
        parent?.traceId ?? ids.next(16),
        ids.next(8),
        parent?.spanId,
        parent !== undefined,
        parent?.traceState,
        { "http.request.method": method, "url.path": q < 0 ? url : url.slice(0, q), "url.scheme": "http" },
        now(),
      );
      return { span, trace: span };
    },
    async inSpan(name, kind, attributes, parent, fn) {
      if (parent === undefined) return fn(unrecorded, undefined);
      const up = parent as Span;
      const span = new Span(
        recorder,
        name,
        kind === "client" ? kindClient : kindInternal,
        up.traceId,
        ids.next(8),
        up.spanId,
        false,
        up.traceState,
        { ...attributes },
        now(),
      );
      try {
        return await fn(span, span);
      } catch (err) {
        span.setStatus({ code: 2, message: (err as Error)?.name ?? "Error" });
        throw err;
      } finally {
        span.end();
      }
    },
    async shutdown() {
      recorder.handOver();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, flushMillis);
        timer.unref();
      });
      try {
        await Promise.race([exporter.shutdown(), late]);
      } catch (err) {
        options.log(`telemetry: spans could not be exported at shutdown: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** `http://collector:4318` → `http://collector:4318/v1/traces` (a URL already ending so is kept). */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, "");
  return base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
}

const traceparentForm = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The caller's span of a W3C `traceparent` (Trace Context, level 1): undefined when the header
 * is not a valid one — then the request starts a trace of its own. Version 00 has exactly four
 * fields; a later version may have more, which are ignored; version ff is invalid.
 */
export function remoteParent(traceparent: string, tracestate: string | string[] | undefined): RemoteParent | undefined {
  const m = traceparentForm.exec(traceparent.trim());
  if (!m || m[1] === "ff" || (m[1] === "00" && m[5] !== undefined)) return undefined;
  const traceId = m[2]!;
  const spanId = m[3]!;
  if (allZeros.test(traceId) || allZeros.test(spanId)) return undefined;
  const state = Array.isArray(tracestate) ? tracestate.join(",") : tracestate;
  return {
    traceId,
    spanId,
    sampled: (Number.parseInt(m[4]!, 16) & 1) === 1,
    traceState: state === undefined ? undefined : boundedTraceState(state),
  };
}

/** What of a caller's `tracestate` its spans carry: Trace Context's propagation limits. */
const traceStateChars = 512;
const traceStateMembers = 32;
const longMemberChars = 128;

/**
 * A caller's `tracestate` as its spans carry it: its list members (empty ones dropped), at
 * most 32 and 512 characters, cut as W3C Trace Context says a vendor may — members longer
 * than 128 characters go first, then members from the end. Undefined when nothing is left.
 * Without the cap, a caller could have up to node's header limit (16 KB) copied into every
 * span of its trace.
 */
export function boundedTraceState(raw: string): string | undefined {
  let members = raw
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  const joined = () => members.join(",");
  if (members.length > traceStateMembers || joined().length > traceStateChars) {
    members = members.filter((m) => m.length <= longMemberChars).slice(0, traceStateMembers);
    while (joined().length > traceStateChars) members.pop();
  }
  return members.length > 0 ? joined() : undefined;
}
