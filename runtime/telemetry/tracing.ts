// OpenTelemetry traces of one instance (spec/operations.md, "Traces"): a server span per HTTP
// request (a W3C `traceparent` from the caller is its parent), a span per MCP method and per
// operation, a child span per store write transaction; exported over OTLP/HTTP (JSON) in batches.
// Loaded only when traces are configured (telemetry.ts): this module is what pulls in the SDK.
//
// The tracer provider is the instance's own, not the global one, so two instances in one
// process keep apart. No context manager is installed: the active trace is handed down
// explicitly (the request's on the IncomingMessage, a call's in CallContext.trace), because an
// AsyncLocalStorage would switch on node's promise hooks, which cost every promise of the
// process — a third of the REST GET throughput on Node 20 — even for requests not sampled.

import type { IncomingMessage } from "node:http";
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TelemetryConfig } from "../../model/app.js";
import { startSpanExporter } from "./export-worker.js";

export type SpanHandle = Span;

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
/** What `fn` of inSpan gets outside a recorded trace: a span that records nothing. */
const unrecorded: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export async function createTracing(options: TracingOptions): Promise<Tracing> {
  const { config = {}, app, env } = options;
  const resource = {
    [ATTR_SERVICE_NAME]: config.serviceName ?? env.OTEL_SERVICE_NAME ?? app.name,
    [ATTR_SERVICE_VERSION]: app.version,
  };
  // The wo.toml endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is; without it the
  // exporter reads the OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT variables itself. It sends from a
  // worker thread (export-worker.ts): from this one, its HTTP client slowed the server's.
  const exporter = startSpanExporter({
    url: config.otlpEndpoint !== undefined ? tracesUrl(config.otlpEndpoint) : undefined,
    resource,
    env,
    log: options.log,
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    // With `sample_ratio`, serveRequest tosses the coin itself before any span is made, so the
    // SDK keeps every root it is handed (a ratio sampler here would apply the ratio a second
    // time: r² of the traces) and follows a caller's sampled flag. Without the key the provider
    // reads OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default: all).
    ...(config.sampleRatio !== undefined ? { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) } : {}),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer: Tracer = provider.getTracer("wo", app.version);
  const propagator = new W3CTraceContextPropagator();
  const rootRatio = config.sampleRatio;

  return {
    serveRequest(req) {
      const traceparent = req.headers.traceparent;
      // With `sample_ratio` a request left out costs one random number (or, with a caller's
      // trace, a look at its sampled flag) and makes no span or context at all.
      if (rootRatio !== undefined) {
        const sampled = typeof traceparent === "string" ? sampledFlag(traceparent) : undefined;
        if (sampled === undefined ? !(Math.random() < rootRatio) : !sampled) return undefined;
      }
      const parent = traceparent ? propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter) : ROOT_CONTEXT;
      const method = req.method ?? "GET";
      const url = req.url ?? "/";
      const q = url.indexOf("?");
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            "http.request.method": method,
            "url.path": q < 0 ? url : url.slice(0, q),
            "url.scheme": "http",
          },
        },
        parent,
      );
      // Left out by the sampler: no trace to hand down, so nothing below makes a span.
      if (!span.isRecording()) return undefined;
      return { span, trace: trace.setSpan(parent, span) };
    },
    async inSpan(name, kind, attributes, parent, fn) {
      if (parent === undefined) return fn(unrecorded, undefined);
      const span = tracer.startSpan(
        name,
        { kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes },
        parent as Context,
      );
      try {
        return await fn(span, trace.setSpan(parent as Context, span));
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? "Error" });
        throw err;
      } finally {
        span.end();
      }
    },
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, flushMillis);
        timer.unref();
      });
      try {
        await Promise.race([provider.shutdown(), late]);
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

const traceparentForm = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;

/**
 * The sampled flag of a W3C `traceparent`, or undefined when the header is not a valid one (the
 * propagator ignores it then, and the request starts a trace of its own).
 */
export function sampledFlag(traceparent: string): boolean | undefined {
  const m = traceparentForm.exec(traceparent.trim());
  if (!m || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return (Number.parseInt(m[4]!, 16) & 1) === 1;
}
