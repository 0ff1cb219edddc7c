// `[admin]` and `[telemetry]` in wo.toml (spec/operations.md, "Admin listener", "Traces"):
// absent by default (nothing observed), every key read, each mistake reported at its key.
import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach } from "../check/app-fixture.js";

const app = appsDeletedAfterEach();
const schema = "type A {\n  x: Int\n}\n";

async function check(toml: string) {
  const { catalog, diagnostics } = await checkApp(app({ "a.wo": schema, "wo.toml": toml }));
  return { config: catalog?.config, diagnostics: diagnostics.map((d) => [d.code, `${d.span.line}:${d.span.col}`]) };
}

describe("wo.toml [admin] and [telemetry]", () => {
  it("absent: no admin listener and no traces", async () => {
    const { config, diagnostics } = await check('name = "x"\n');
    expect(diagnostics).toEqual([]);
    expect(config!.adminListen).toBeUndefined();
    expect(config!.telemetry).toBeUndefined();
  });

  it("every key; ':9464' keeps the loopback host", async () => {
    const { config, diagnostics } = await check(
      '[admin]\nlisten = ":9464"\n[telemetry]\notlp_endpoint = "http://127.0.0.1:4318"\nsample_ratio = 0.25\nservice_name = "shop"\n',
    );
    expect(diagnostics).toEqual([]);
    expect(config!.adminListen).toBe("127.0.0.1:9464");
    expect(config!.telemetry).toEqual({
      otlpEndpoint: "http://127.0.0.1:4318",
      sampleRatio: 0.25,
      serviceName: "shop",
    });
  });

  it("a wrong value is WO4005 at its key", async () => {
    const { config, diagnostics } = await check(
      '[admin]\nlisten = "nowhere"\n[telemetry]\notlp_endpoint = "collector:4318"\nsample_ratio = 2\n',
    );
    expect(diagnostics).toEqual([
      ["WO4005", "2:1"],
      ["WO4005", "4:1"],
      ["WO4005", "5:1"],
    ]);
    // An error in wo.toml: no catalog, so nothing is served with half a configuration.
    expect(config).toBeUndefined();
  });

  it("an unknown key is WO4101", async () => {
    const { diagnostics } = await check('[telemetry]\notlp_endpont = "http://127.0.0.1:4318"\n');
    expect(diagnostics).toEqual([["WO4101", "2:1"]]);
  });
});
