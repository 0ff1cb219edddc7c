// The container image and the npm package, checked without a container engine (none runs
// here; `.ci/run` exercises the Dockerfile's steps on a clean clone): the Dockerfile's rules
// (pinned bases, an unprivileged user, no remote ADD, a health check, the entry point), the
// image's token rule (WO_REQUIRE_TOKEN=1: no listening off loopback without a token), and the
// package `npm pack` makes: what it holds, and that it runs once installed.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeApp, repoRoot, runToExit, startWo, tempDir, writeApp } from "../support/wo-process.js";

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(): { op: string; args: string }[] {
  const text = readFileSync(join(repoRoot, "Dockerfile"), "utf8").replace(/\\\n/g, " ");
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

describe("Dockerfile", () => {
  const all = instructions();
  const finalStage = all.slice(all.map((i) => i.op).lastIndexOf("FROM"));

  it("every base image is pinned to a full release, none is latest", () => {
    const bases = all.filter((i) => i.op === "FROM").map((i) => i.args.split(/\s+/)[0]!);
    expect(bases.length).toBeGreaterThan(0);
    for (const b of bases) expect(b, b).toMatch(/^[\w./-]+:\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?$/);
  });

  it("the image runs as an unprivileged user, with no remote ADD", () => {
    const users = finalStage.filter((i) => i.op === "USER").map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(all.filter((i) => i.op === "ADD")).toEqual([]);
  });

  it("entry point, command, token rule and health check", () => {
    const last = (op: string) => finalStage.filter((i) => i.op === op).at(-1)?.args;
    expect(JSON.parse(last("ENTRYPOINT")!)).toEqual(["node", "/opt/wo/bin/wo.js"]);
    expect(JSON.parse(last("CMD")!)).toEqual(["run", "/app", "--listen", "0.0.0.0:8080"]);
    expect(finalStage.some((i) => i.op === "ENV" && /\bWO_REQUIRE_TOKEN=1\b/.test(i.args))).toBe(true);
    expect(last("HEALTHCHECK")).toMatch(/CMD .*\/healthz/);
    expect(all.some((i) => i.op === "RUN" && /npm ci\b/.test(i.args))).toBe(true);
    expect(all.some((i) => i.op === "RUN" && /npm prune --omit=dev/.test(i.args))).toBe(true);
  });

  it(".dockerignore keeps local installs, builds and app data out of the context", () => {
    const ignored = readFileSync(join(repoRoot, ".dockerignore"), "utf8").split("\n");
    for (const p of ["node_modules", "dist", "**/.wo", ".git"]) expect(ignored).toContain(p);
  });

  it("compose.yaml: two instances on one PostgreSQL, secrets from the environment only", () => {
    const compose = readFileSync(join(repoRoot, "compose.yaml"), "utf8");
    expect(compose).toMatch(/^ {2}wo-a:/m);
    expect(compose).toMatch(/^ {2}wo-b:/m);
    expect(compose).toMatch(/image: postgres:\d+\.\d+/);
    expect(compose).toContain("${WO_TOKEN:?");
    expect(compose).toContain("${WO_DB_PASSWORD:?");
    // No password in a URL (it would show in `ps` and in logs).
    expect(compose).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]*@/);
  });
});

describe("WO_REQUIRE_TOKEN=1 (set in the image)", () => {
  const apps: string[] = [];
  afterAll(() => apps.forEach(removeApp));
  const app = (toml: string) => {
    const dir = writeApp("image", {
      "wo.toml": `name = "image"\n${toml}`,
      "app.wo": 'type Note {\n  text: Text\n  service rest "/api/notes" expose list, create\n}\n',
    });
    apps.push(dir);
    return dir;
  };

  it("refuses to listen off loopback without a token, saying how to set one", async () => {
    const { code, output } = await runToExit([app(""), "--listen", "0.0.0.0:0"], { env: { WO_REQUIRE_TOKEN: "1" } });
    expect(code).toBe(1);
    expect(output).toContain("WO_REQUIRE_TOKEN=1 and no bearer token: refusing to listen on 0.0.0.0");
    expect(output).toContain("[server] token_env");
  }, 120_000);

  it("with a token it serves: /healthz answers without it, /api only with it", async () => {
    const token = "image-test-token-0123456789abcdef";
    const server = await startWo([app('[server]\ntoken_env = "WO_TOKEN"\n'), "--listen", "0.0.0.0:0", "--quiet"], {
      env: { WO_REQUIRE_TOKEN: "1", WO_TOKEN: token },
    });
    try {
      const port = new URL(server.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/notes`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/api/notes`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(server.output()).not.toContain(token);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("on loopback nothing changes: no token needed", async () => {
    const server = await startWo([app(""), "--listen", "127.0.0.1:0", "--quiet"], { env: { WO_REQUIRE_TOKEN: "1" } });
    try {
      expect((await fetch(`${server.url}/api/notes`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe("the npm package", () => {
  it("holds the CLI, the compiled code and the explorer's assets; no tests, tools, sources or benchmarks", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const f of ["package.json", "README.md", "bin/wo.js", "dist/cli/main.js", "dist/runtime/server.js"])
      expect(files).toContain(f);
    expect(files).toContain("runtime/explorer/public/index.html");
    expect(files).toContain("runtime/explorer/public/explorer.js");
    const unwanted = files.filter(
      (f) =>
        /^(test|tools|bench|samples|spec|editors|\.ci)\//.test(f) ||
        /^dist\/(test|tools|bench)\//.test(f) ||
        (f.endsWith(".ts") && !f.endsWith(".d.ts")),
    );
    expect(unwanted).toEqual([]);
  });

  it("installed from its tarball into an empty folder, `wo check` runs", () => {
    const dir = tempDir("wo-pack-");
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: repoRoot, stdio: "pipe" });
    const tarball = join(dir, "wo-0.1.0.tgz");
    const install = join(dir, "install");
    mkdirSync(install);
    writeFileSync(join(install, "package.json"), '{ "private": true }\n');
    // Scripts off: better-sqlite3 would fetch or compile its binary, which `wo check` never loads.
    execFileSync(
      "npm",
      ["install", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--package-lock=false", tarball],
      { cwd: install, stdio: "pipe" },
    );
    const out = execFileSync(
      process.execPath,
      [join(install, "node_modules/wo/bin/wo.js"), "check", join(repoRoot, "samples/hello")],
      {
        encoding: "utf8",
      },
    );
    expect(out).toMatch(/samples\/hello: 1 type, 1 service, .* — ok/);
  }, 300_000);
});
