// A command loads what it needs and no more (spec/architecture.md "Build and start-up cost"):
// `wo check` none of the runtime (no HTTP server, no store driver, no validator compiler), and
// `wo run` of a built SQLite app neither the compiler nor the PostgreSQL driver. Each module a
// command imports costs start-up time on every run; an import at the top of a shared file is
// enough to pull a whole package in. Observed with a module resolve hook (node:module
// register) that logs every URL the process resolves, in the real CLI (dist/, `npm run build`).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyApp, removeApp, runWoCommand, startWo, tempDir } from "../support/wo-process.js";

let appDir: string;
let hookDir: string;
beforeAll(() => {
  appDir = copyApp("samples/hello");
  hookDir = tempDir("wo-modules-");
  // The hooks run on the loader's own thread: they append to the file the environment names.
  writeFileSync(
    join(hookDir, "hooks.mjs"),
    [
      'import { appendFileSync } from "node:fs";',
      "export async function resolve(specifier, context, next) {",
      "  const r = await next(specifier, context);",
      "  appendFileSync(process.env.WO_TEST_MODULE_LOG, `${r.url}\\n`);",
      "  return r;",
      "}",
    ].join("\n"),
  );
  writeFileSync(
    join(hookDir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(hookDir, "hooks.mjs")).href)});\n`,
  );
});
afterAll(() => {
  removeApp(appDir);
  rmSync(hookDir, { recursive: true, force: true });
});

function logging(name: string): { env: Record<string, string>; modules: () => string[] } {
  const log = join(hookDir, `${name}.log`);
  writeFileSync(log, "");
  return {
    env: {
      NODE_OPTIONS: `--import ${pathToFileURL(join(hookDir, "register.mjs")).href}`,
      WO_TEST_MODULE_LOG: log,
    },
    modules: () => readFileSync(log, "utf8").split("\n").filter(Boolean),
  };
}

/** The packages under node_modules among `urls`, by name (`@scope/name` or `name`). */
function packages(urls: string[]): Set<string> {
  const names = new Set<string>();
  for (const url of urls) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) names.add(m[1]!);
  }
  return names;
}

describe("modules a command loads", () => {
  it("wo check loads the compiler only: no runtime module, no server, store or validator package", {
    timeout: 60_000,
  }, async () => {
    const { env, modules } = logging("check");
    const r = await runWoCommand(["check", appDir], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const urls = modules();
    expect(urls.some((u) => u.includes("/dist/compiler/"))).toBe(true); // the hook saw the CLI
    expect(urls.filter((u) => u.includes("/dist/runtime/"))).toEqual([]);
    const loaded = packages(urls);
    for (const heavy of ["hono", "@hono/node-server", "better-sqlite3", "pg", "undici", "ajv", "jose", "ts-morph"])
      expect(loaded.has(heavy), `wo check loaded ${heavy}`).toBe(false);
  });

  it("wo run of a built SQLite app loads neither the compiler's packages nor pg, undici or jose", {
    timeout: 120_000,
  }, async () => {
    const built = await runWoCommand(["build", appDir]);
    expect(built.code, built.stdout + built.stderr).toBe(0);
    const { env, modules } = logging("run");
    const wo = await startWo([appDir, "--listen", "127.0.0.1:0", "--quiet"], { env });
    try {
      const res = await fetch(`${wo.url}/healthz`);
      expect(res.status).toBe(200);
    } finally {
      await wo.stop();
    }
    const loaded = packages(modules());
    expect(loaded.has("better-sqlite3")).toBe(true); // the hook saw the store open
    // jose verifies the JWTs of an `[auth]` issuer, which samples/hello does not name.
    for (const unneeded of ["pg", "undici", "chevrotain", "ts-morph", "ajv", "jose"])
      expect(loaded.has(unneeded), `wo run loaded ${unneeded}`).toBe(false);
  });
});
