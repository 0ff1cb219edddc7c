// policy-compile: the startup banner says whether policies are in force, through a real
// `wo run` (bin/wo.js runs dist/: run `npm run build` first).

import { afterEach, describe, expect, it, vi } from "vitest";
import { removeApp, startWo, writeApp, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 90_000 });

const withPolicies = `type Post {
  title: Text
  policy read anyone
  service rest "/api/posts" expose list
}
type Tag {
  label: Text
  service rest "/api/tags" expose list
}
`;

const running: { wo: WoProcess; dir: string }[] = [];
afterEach(async () => {
  for (const { wo, dir } of running.splice(0)) {
    await wo.stop();
    removeApp(dir);
  }
});

async function banner(files: Record<string, string>, env: Record<string, string> = {}): Promise<string> {
  const dir = writeApp("policybanner", files);
  const wo = await startWo([dir, "--listen", "127.0.0.1:0"], { env });
  running.push({ wo, dir });
  for (let i = 0; i < 500 && !/ {2}policies {2}.*\n/.test(wo.output()); i++)
    await new Promise((r) => setTimeout(r, 20));
  return /^ {2}policies {2}(.*)$/m.exec(wo.output())?.[1] ?? wo.output();
}

describe("startup banner: policies", () => {
  it("without an identity source: declared, not in force, and why", async () => {
    expect(await banner({ "app.wo": withPolicies })).toBe(
      "declared on type Post, not in force: no identity source is configured, so every local caller is the owner, whom policies do not narrow",
    );
  });

  it("with a bearer token configured: in force, and what anonymous callers get", async () => {
    const line = await banner(
      { "app.wo": withPolicies, "wo.toml": '[server]\ntoken_env = "WO_POLICY_BANNER_TOKEN"\n' },
      { WO_POLICY_BANNER_TOKEN: "banner-token-0123456789abcdef" },
    );
    expect(line).toBe("in force on type Post; anonymous callers get only 'anyone' grants, the owner bypasses them");
  });

  it("an app without policy lines says so", async () => {
    expect(await banner({ "app.wo": withPolicies.replace("  policy read anyone\n", "") })).toBe(
      "none declared: every caller that may call at all may do everything",
    );
  });
});
