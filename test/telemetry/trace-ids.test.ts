// The recorder's own W3C parts (runtime/telemetry/tracing.ts): the ids it draws and the
// caller's `traceparent` it reads, by the rules of Trace Context level 1.
import { describe, expect, it } from "vitest";
import { IdPool, boundedTraceState, remoteParent } from "../../runtime/telemetry/tracing.js";

describe("IdPool", () => {
  it("draws valid, distinct trace and span ids across refills of its pool", () => {
    const pool = new IdPool();
    const traces = new Set<string>();
    const spans = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      traces.add(pool.next(16));
      spans.add(pool.next(8));
    }
    expect(traces.size).toBe(2000);
    expect(spans.size).toBe(2000);
    for (const id of traces) expect(id).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
    for (const id of spans) expect(id).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
  });
});

describe("remoteParent", () => {
  const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const span = "00f067aa0ba902b7";
  it("reads the caller's ids, its sampled flag and its tracestate", () => {
    expect(remoteParent(`00-${trace}-${span}-01`, "congo=t61rcWkgMzE")).toEqual({
      traceId: trace,
      spanId: span,
      sampled: true,
      traceState: "congo=t61rcWkgMzE",
    });
    expect(remoteParent(`00-${trace}-${span}-00`, undefined)?.sampled).toBe(false);
  });
  it("refuses what W3C calls invalid: zero ids, version ff, extra fields in version 00", () => {
    expect(remoteParent(`00-${"0".repeat(32)}-${span}-01`, undefined)).toBeUndefined();
    expect(remoteParent(`00-${trace}-${"0".repeat(16)}-01`, undefined)).toBeUndefined();
    expect(remoteParent(`ff-${trace}-${span}-01`, undefined)).toBeUndefined();
    expect(remoteParent(`00-${trace}-${span}-01-extra`, undefined)).toBeUndefined();
    expect(remoteParent(`01-${trace}-${span}-01-extra`, undefined)?.traceId).toBe(trace);
    expect(remoteParent("garbage", undefined)).toBeUndefined();
  });
});

describe("boundedTraceState", () => {
  it("keeps a tracestate within the limits as it came, without empty members", () => {
    expect(boundedTraceState("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE")).toBe(
      "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    );
    expect(boundedTraceState("a=1,,b=2, ")).toBe("a=1,b=2");
    expect(boundedTraceState(" , ")).toBeUndefined();
  });
  it("cuts one over 512 characters: long members first, then from the end", () => {
    const long = `big=${"x".repeat(200)}`;
    const members = Array.from({ length: 20 }, (_, i) => `v${i}=${"y".repeat(20)}`);
    const cut = boundedTraceState([long, ...members, long].join(","))!;
    expect(cut.length).toBeLessThanOrEqual(512);
    expect(cut).not.toContain("big=");
    expect(cut.split(",")).toEqual(members.filter((_, i) => i < cut.split(",").length));
    expect(cut.startsWith("v0=")).toBe(true);
  });
  it("keeps at most 32 members", () => {
    const many = Array.from({ length: 40 }, (_, i) => `k${i}=1`).join(",");
    expect(boundedTraceState(many)!.split(",")).toHaveLength(32);
  });
  it("is what a caller's traceparent brings along", () => {
    const huge = Array.from({ length: 500 }, (_, i) => `k${i}=${"z".repeat(30)}`).join(",");
    const parent = remoteParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", huge);
    expect(parent?.traceState?.length).toBeLessThanOrEqual(512);
  });
});
