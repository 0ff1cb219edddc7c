// What a runtime instance can observe of itself (spec/operations.md, "Metrics" and "Traces"):
// Prometheus metrics, collected only when the admin listener serves them (`[admin] listen`),
// and OpenTelemetry traces, made only when an OTLP endpoint is configured (`[telemetry]
// otlp_endpoint` or the standard OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT variables). Each part is
// loaded on demand: a process with neither loads neither prom-client nor the OpenTelemetry
// SDK, and the request path then tests one `undefined` and does nothing else.
//
// The instance owns its Telemetry (its own metrics registry, its own tracer provider), so two
// instances in one process never count into each other.

import type { WoConfig } from "../../model/app.js";
import type { Metrics, MetricSources } from "./metrics.js";
import type { Tracing } from "./tracing.js";

export type { Metrics, MetricSources } from "./metrics.js";
export type { Tracing, SpanHandle } from "./tracing.js";

export interface Telemetry {
  /** Present when the admin listener is configured: nothing else can read them. */
  readonly metrics: Metrics | undefined;
  /** Present when an OTLP endpoint is configured. */
  readonly tracing: Tracing | undefined;
  /** Exports the spans not sent yet and stops the exporter (shutdown). */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  config: WoConfig;
  app: { name: string; version: string };
  env: NodeJS.ProcessEnv;
  /** The instance's parts the gauges read when scraped. */
  sources: MetricSources;
  log: (line: string) => void;
}

/** Whether traces are asked for: the wo.toml key or the standard variables. */
export function tracesConfigured(config: WoConfig, env: NodeJS.ProcessEnv): boolean {
  return (
    config.telemetry?.otlpEndpoint !== undefined ||
    !!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    !!env.OTEL_EXPORTER_OTLP_ENDPOINT
  );
}

/** Telemetry for one instance, or undefined when nothing is configured (nothing is loaded then). */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry | undefined> {
  const { config, env } = options;
  const wantMetrics = config.adminListen !== undefined;
  const wantTraces = tracesConfigured(config, env);
  if (!wantMetrics && !wantTraces) return undefined;
  const metrics = wantMetrics ? (await import("./metrics.js")).createMetrics(options.sources) : undefined;
  const tracing = wantTraces
    ? await (await import("./tracing.js")).createTracing({
        ...(config.telemetry ? { config: config.telemetry } : {}),
        app: options.app,
        env,
        log: options.log,
      })
    : undefined;
  return {
    metrics,
    tracing,
    shutdown: async () => {
      await tracing?.shutdown();
    },
  };
}
