// OpenTelemetry traces of one instance (spec/operations.md, "Traces"): a server span per HTTP
// request (a W3C `traceparent` from the caller is its parent), a span per MCP method and per
// operation, a child span per store transaction; exported over OTLP/HTTP (JSON) in batches.
// Loaded only when traces are configured (telemetry.ts): this module is what pulls in the SDK.
//
// The tracer provider is the instance's own, not the global one, so two instances in one
// process keep apart. What is process-wide is the context manager (AsyncLocalStorage): it is
// what carries the active span from the request through every await down to the store, and
// installing it twice is harmless (the second install is refused and the first one serves).

import type { IncomingMessage } from "node:http";
import {
  type Attributes,
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TelemetryConfig } from "../../model/app.js";

export type SpanHandle = Span;

export interface Tracing {
  /**
   * Starts the server span of an HTTP request (its parent: the request's `traceparent`, when
   * valid) and runs `handle` inside it. The caller ends the span when the answer is done.
   */
  serveRequest(req: IncomingMessage, handle: () => void): SpanHandle;
  /** Runs `fn` inside a new child span of the active one; the span ends when `fn` settles. */
  inSpan<T>(
    name: string,
    kind: "internal" | "client",
    attributes: Attributes,
    fn: (span: SpanHandle) => Promise<T>,
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

export async function createTracing(options: TracingOptions): Promise<Tracing> {
  const { config = {}, app, env } = options;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // The wo.toml endpoint is a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is; without it the
  // exporter reads the OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT variables itself.
  const exporter = new OTLPTraceExporter(
    config.otlpEndpoint !== undefined ? { url: tracesUrl(config.otlpEndpoint) } : {},
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName ?? env.OTEL_SERVICE_NAME ?? app.name,
      [ATTR_SERVICE_VERSION]: app.version,
    }),
    // `sample_ratio` of traces started here; a caller's sampled flag is followed. Without the
    // key the provider reads OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (default: all).
    ...(config.sampleRatio !== undefined
      ? { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }) }
      : {}),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer: Tracer = provider.getTracer("wo", app.version);
  const propagator = new W3CTraceContextPropagator();

  return {
    serveRequest(req, handle) {
      const parent = req.headers.traceparent
        ? propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter)
        : ROOT_CONTEXT;
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
      context.with(trace.setSpan(parent, span), handle);
      return span;
    },
    inSpan(name, kind, attributes, fn) {
      return tracer.startActiveSpan(
        name,
        { kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes },
        async (span) => {
          try {
            return await fn(span);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? "Error" });
            throw err;
          } finally {
            span.end();
          }
        },
      );
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
