// The OTLP/HTTP export of an instance's spans, in a worker thread (spec/operations.md,
// "Traces"). The OTLP exporter sends each batch with node:http, whose client request, response
// and socket share their code with the server's (OutgoingMessage, IncomingMessage, the stream
// internals): exported from the server's thread, every batch made that code see shapes it had
// not, and the server's hot HTTP path ran slower for every request, sampled or not — measured,
// most of what traces sampled at 0.01 cost (bench/telemetry/run.mjs). In a worker the
// exporter has an isolate of its own. startSpanExport() is the server's side; the rest of this
// file runs in the worker.
//
// What crosses over is each finished span's plain data (RecordedSpan, structured clone), made
// by the server's recorder (tracing.ts). The worker gives it the shape the SDK reads (a
// ReadableSpan, one resource and one scope for the instance) and hands it to the SDK's
// BatchSpanProcessor, which batches (the OTEL_BSP_* variables), bounds its queue and exports
// with the OTLP/HTTP (JSON) exporter (the OTEL_EXPORTER_OTLP_* variables).

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Attributes, HrTime, SpanContext } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

/** A finished span as the server's recorder hands it over. Times: wall-clock ms, fractional. */
export interface RecordedSpan {
  name: string;
  /** OpenTelemetry's SpanKind. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /** The parent is the caller's span (from its `traceparent`). */
  parentRemote: boolean;
  /** The caller's `tracestate`, as it came. */
  traceState: string | undefined;
  attributes: Attributes;
  startTime: number;
  endTime: number;
  /** OpenTelemetry's SpanStatusCode. */
  statusCode: number;
  statusMessage: string | undefined;
}

/** What the worker is started with. */
interface ExportWorkerData {
  woSpanExport: true;
  /** The OTLP traces URL from wo.toml; absent: the exporter reads the OTEL_* variables. */
  url: string | undefined;
  resource: Attributes;
  scope: { name: string; version: string };
}

type ToWorker = { spans: RecordedSpan[] } | { shutdown: true };
type FromWorker = { stopped: true; error: string | undefined };

export interface SpanExport {
  /** Hands finished spans to the worker (dropped once it has failed). */
  send(spans: RecordedSpan[]): void;
  /** Exports what the worker holds, then ends it. */
  shutdown(): Promise<void>;
}

/**
 * The span export of an instance: a worker thread that batches and sends the spans with the
 * OTLP/HTTP (JSON) exporter. The worker does not keep the process alive.
 */
export function startSpanExport(options: {
  url: string | undefined;
  resource: Attributes;
  scope: { name: string; version: string };
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): SpanExport {
  const data: ExportWorkerData = {
    woSpanExport: true,
    url: options.url,
    resource: options.resource,
    scope: options.scope,
  };
  const worker = new Worker(new URL(import.meta.url), { workerData: data, env: options.env });
  worker.unref();
  let failed = false;
  let dropped = 0;
  let stopped: (() => void) | undefined;
  worker.on("message", (m: FromWorker) => {
    if (m.error !== undefined) options.log(`telemetry: spans could not be exported at shutdown: ${m.error}`);
    stopped?.();
  });
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    options.log(`telemetry: the span export worker stopped: ${err.message}; spans are dropped from now on`);
    stopped?.();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`exited with code ${code}`)));
  return {
    send(spans) {
      if (!failed) worker.postMessage({ spans } satisfies ToWorker);
      else dropped += spans.length;
    },
    async shutdown() {
      if (dropped > 0) options.log(`telemetry: ${dropped} spans were dropped after the export worker stopped`);
      if (failed) return;
      await new Promise<void>((resolve) => {
        stopped = resolve;
        worker.postMessage({ shutdown: true } satisfies ToWorker);
      });
      // Its exit now is the one asked for: nothing to report.
      failed = true;
      await worker.terminate();
    },
  };
}

// ---- The worker's side.

/** Wall-clock ms → OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

async function serveExports(port: NonNullable<typeof parentPort>, data: ExportWorkerData): Promise<void> {
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor }, { TraceState }] = await Promise.all(
    [
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/core"),
    ],
  );
  const processor = new BatchSpanProcessor(new OTLPTraceExporter(data.url !== undefined ? { url: data.url } : {}));
  // One resource object for all spans: the exporter groups a batch's spans by it.
  const resource = resourceFromAttributes(data.resource);
  const scope = data.scope;
  const sampled = 1; // TraceFlags.SAMPLED: every recorded span was sampled
  const readable = (s: RecordedSpan): ReadableSpan => {
    const traceState = s.traceState !== undefined ? new TraceState(s.traceState) : undefined;
    const context: SpanContext = {
      traceId: s.traceId,
      spanId: s.spanId,
      traceFlags: sampled,
      ...(traceState ? { traceState } : {}),
    };
    const startTime = hrTime(s.startTime);
    const endTime = hrTime(s.endTime);
    return {
      name: s.name,
      kind: s.kind,
      spanContext: () => context,
      ...(s.parentSpanId !== undefined
        ? {
            parentSpanContext: {
              traceId: s.traceId,
              spanId: s.parentSpanId,
              traceFlags: sampled,
              isRemote: s.parentRemote,
              ...(traceState ? { traceState } : {}),
            },
          }
        : {}),
      startTime,
      endTime,
      duration: hrTime(s.endTime - s.startTime),
      status: s.statusMessage !== undefined ? { code: s.statusCode, message: s.statusMessage } : { code: s.statusCode },
      attributes: s.attributes,
      links: [],
      events: [],
      ended: true,
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  };
  port.on("message", (m: ToWorker) => {
    if ("shutdown" in m) {
      processor.shutdown().then(
        () => port.postMessage({ stopped: true, error: undefined } satisfies FromWorker),
        (err: unknown) => port.postMessage({ stopped: true, error: (err as Error)?.message } satisfies FromWorker),
      );
      return;
    }
    for (const s of m.spans) processor.onEnd(readable(s));
  });
}

if (!isMainThread && parentPort && (workerData as ExportWorkerData | undefined)?.woSpanExport === true) {
  void serveExports(parentPort, workerData as ExportWorkerData);
}
