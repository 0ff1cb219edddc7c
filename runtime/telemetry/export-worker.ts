// The OTLP/HTTP export of an instance's spans, in a worker thread (spec/operations.md,
// "Traces"). The OTLP exporter sends each batch with node:http, whose client request, response
// and socket share their code with the server's (OutgoingMessage, IncomingMessage, the stream
// internals): exported from the server's thread, every batch made that code see shapes it had
// not, and the server's hot HTTP path ran slower for every request, sampled or not — measured,
// most of what traces sampled at 0.01 cost (bench/telemetry/run.mjs). In a worker the
// exporter has an isolate of its own. startSpanExporter() is the server's side (the exporter
// the span processor is given); the rest of this file runs in the worker.
//
// What crosses over is each span's plain data (structured clone); the worker gives it back the
// shape the OTLP exporter reads (a ReadableSpan), with one resource for the instance.

import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode, TraceState } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace-base";

/** What the worker is started with: the exporter's options and the instance's resource. */
interface ExportWorkerData {
  woSpanExport: true;
  /** The OTLP traces URL from wo.toml; absent: the exporter reads the OTEL_* variables. */
  url: string | undefined;
  resource: Attributes;
}

/** A span context as it crosses: its trace state serialised. */
interface PlainContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean | undefined;
  traceState: string | undefined;
}

interface PlainSpan {
  context: PlainContext;
  parent: PlainContext | undefined;
  name: string;
  kind: SpanKind;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
  events: TimedEvent[];
  droppedEventsCount: number;
  links: { context: PlainContext; attributes: Attributes | undefined; droppedAttributesCount: number | undefined }[];
  droppedLinksCount: number;
  status: SpanStatus;
  ended: boolean;
  scope: { name: string; version: string | undefined; schemaUrl: string | undefined };
}

type ToWorker = { export: number; spans: PlainSpan[] } | { shutdown: true };
type FromWorker = { exported: number; code: ExportResultCode; error: string | undefined } | { stopped: true };

const plainContext = (c: SpanContext): PlainContext => ({
  traceId: c.traceId,
  spanId: c.spanId,
  traceFlags: c.traceFlags,
  isRemote: c.isRemote,
  traceState: c.traceState?.serialize(),
});

function plainSpan(span: ReadableSpan): PlainSpan {
  const parent = span.parentSpanContext;
  return {
    context: plainContext(span.spanContext()),
    parent: parent && plainContext(parent),
    name: span.name,
    kind: span.kind,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map((l: Link) => ({
      context: plainContext(l.context),
      attributes: l.attributes,
      droppedAttributesCount: l.droppedAttributesCount,
    })),
    droppedLinksCount: span.droppedLinksCount,
    status: span.status,
    ended: span.ended,
    scope: {
      name: span.instrumentationScope.name,
      version: span.instrumentationScope.version,
      schemaUrl: span.instrumentationScope.schemaUrl,
    },
  };
}

/**
 * The span exporter of an instance: each batch goes to a worker thread that sends it with the
 * OTLP/HTTP (JSON) exporter. The worker does not keep the process alive; shutdown() waits for
 * its exports, then ends it.
 */
export function startSpanExporter(options: {
  url: string | undefined;
  resource: Attributes;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}): SpanExporter {
  const data: ExportWorkerData = { woSpanExport: true, url: options.url, resource: options.resource };
  const worker = new Worker(new URL(import.meta.url), { workerData: data, env: options.env });
  worker.unref();
  const waiting = new Map<number, (result: ExportResult) => void>();
  let next = 0;
  let failed: Error | undefined;
  let stopped: (() => void) | undefined;
  worker.on("message", (m: FromWorker) => {
    if ("stopped" in m) return stopped?.();
    const done = waiting.get(m.exported);
    waiting.delete(m.exported);
    done?.(m.error === undefined ? { code: m.code } : { code: m.code, error: new Error(m.error) });
  });
  const fail = (err: Error) => {
    if (failed) return;
    failed = err;
    options.log(`telemetry: the span export worker stopped: ${err.message}`);
    for (const done of waiting.values()) done({ code: ExportResultCode.FAILED, error: err });
    waiting.clear();
    stopped?.();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`exited with code ${code}`)));
  return {
    export(spans, resultCallback) {
      if (failed) return resultCallback({ code: ExportResultCode.FAILED, error: failed });
      const id = next++;
      waiting.set(id, resultCallback);
      worker.postMessage({ export: id, spans: spans.map(plainSpan) } satisfies ToWorker);
    },
    async shutdown() {
      if (failed) return;
      await new Promise<void>((resolve) => {
        stopped = resolve;
        worker.postMessage({ shutdown: true } satisfies ToWorker);
      });
      // Its exit now is the one asked for: nothing to report.
      failed = new Error("the span exporter is shut down");
      await worker.terminate();
    },
  };
}

// ---- The worker's side.

function contextOf(c: PlainContext): SpanContext {
  return {
    traceId: c.traceId,
    spanId: c.spanId,
    traceFlags: c.traceFlags,
    ...(c.isRemote !== undefined ? { isRemote: c.isRemote } : {}),
    ...(c.traceState !== undefined ? { traceState: new TraceState(c.traceState) } : {}),
  };
}

async function serveExports(port: NonNullable<typeof parentPort>, data: ExportWorkerData): Promise<void> {
  const [{ OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const exporter = new OTLPTraceExporter(data.url !== undefined ? { url: data.url } : {});
  // One resource object for all spans: the exporter groups a batch's spans by it.
  const resource = resourceFromAttributes(data.resource);
  const readable = (s: PlainSpan): ReadableSpan => {
    const context = contextOf(s.context);
    return {
      name: s.name,
      kind: s.kind,
      spanContext: () => context,
      ...(s.parent ? { parentSpanContext: contextOf(s.parent) } : {}),
      startTime: s.startTime,
      endTime: s.endTime,
      status: s.status,
      attributes: s.attributes,
      links: s.links.map((l) => ({
        context: contextOf(l.context),
        ...(l.attributes ? { attributes: l.attributes } : {}),
        ...(l.droppedAttributesCount !== undefined ? { droppedAttributesCount: l.droppedAttributesCount } : {}),
      })),
      events: s.events,
      duration: s.duration,
      ended: s.ended,
      resource,
      instrumentationScope: {
        name: s.scope.name,
        ...(s.scope.version !== undefined ? { version: s.scope.version } : {}),
        ...(s.scope.schemaUrl !== undefined ? { schemaUrl: s.scope.schemaUrl } : {}),
      },
      droppedAttributesCount: s.droppedAttributesCount,
      droppedEventsCount: s.droppedEventsCount,
      droppedLinksCount: s.droppedLinksCount,
    };
  };
  port.on("message", (m: ToWorker) => {
    if ("shutdown" in m) {
      exporter.shutdown().then(
        () => port.postMessage({ stopped: true } satisfies FromWorker),
        () => port.postMessage({ stopped: true } satisfies FromWorker),
      );
      return;
    }
    exporter.export(m.spans.map(readable), (result) =>
      port.postMessage({
        exported: m.export,
        code: result.code,
        error: result.error?.message,
      } satisfies FromWorker),
    );
  });
}

if (!isMainThread && parentPort && (workerData as ExportWorkerData | undefined)?.woSpanExport === true) {
  void serveExports(parentPort, workerData as ExportWorkerData);
}
