// policy-compile: what a person sees of a type's policies — `wo check` (text and
// `--format json --policies`, through the real binary; run `npm run build` first) and the
// language server's hover of a type.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { analyseApp } from "../../compiler/lsp/analysis.js";
import { hoverMarkdown } from "../../compiler/lsp/hover.js";
import { symbolAt } from "../../compiler/lsp/symbols.js";
import { appsDeletedAfterEach } from "../check/app-fixture.js";

vi.setConfig({ testTimeout: 60_000 });

const root = join(import.meta.dirname, "..", "..");
const writeApp = appsDeletedAfterEach();

const app = `type Author {
  name: Text
}
type Post {
  title: Text
  author: ref Author
  status: Draft | Published = Draft

  policy read anyone when status == Published
  policy read when author == $session.user
  policy write for role Editor
}
policy Editors
  applies_to: Post
  when: $session.role == Editor
  effect: skip-row-filters
`;

function wo(...args: string[]) {
  const r = spawnSync(process.execPath, ["bin/wo.js", ...args], { cwd: root, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("wo check lists each type's grants", () => {
  it("text: per action, after the diagnostics and before the summary line", () => {
    const dir = writeApp({ "app.wo": app });
    const r = wo("check", dir);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.slice(0, -1)).toEqual([
      "Post:",
      "  read: anyone when status == Published; or any signed-in caller when author == $session.user",
      "  write: role Editor",
      "  delete: owner only",
      "policy Editors: signed-in callers when $session.role == Editor read every row of Post they may read at all (skip-row-filters)",
    ]);
    expect(lines.at(-1)).toMatch(/: 2 types, 0 services, 0 methods, 0 tools — ok$/);
  });

  it("--format json --policies: the diagnostics, every type's grants and the bypass blocks", () => {
    const dir = writeApp({ "app.wo": app });
    const r = wo("check", dir, "--format", "json", "--policies");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.diagnostics).toEqual([]);
    expect(out.types.map((t: { name: string }) => t.name)).toEqual(["Author", "Post"]);
    expect(out.types[0].grants).toEqual([]);
    const post = out.types[1].grants;
    expect(post.map((g: { text: string }) => g.text)).toEqual([
      "policy read anyone when status == Published",
      "policy read when author == $session.user",
      "policy write for role Editor",
    ]);
    expect(post[1]).toMatchObject({
      action: "read",
      grantee: { kind: "authenticated" },
      when: {
        kind: "compare",
        op: "==",
        left: { kind: "field", path: ["author"] },
        right: { kind: "session", member: "user" },
      },
    });
    expect(post[2].source.line).toBe(11);
    expect(post[2].source.file).toMatch(/app\.wo$/);
    expect(out.bypassPolicies).toEqual([
      expect.objectContaining({ name: "Editors", appliesTo: ["Post"], effect: "skip-row-filters" }),
    ]);
    // Without --policies the JSON stays the diagnostics array editors and CI read.
    expect(wo("check", dir, "--format", "json").stdout).toBe("[]\n");
  });

  it("an app with an error lists no grants and exits 1", () => {
    const dir = writeApp({ "app.wo": app.replace("status == Published", "status == Publishd") });
    const r = wo("check", dir);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toMatch(/read:/);
    expect(r.stderr).toMatch(/app\.wo:9:37: error WO2056: .*Did you mean 'Published'\?/);
  });
});

describe("hover of a type", () => {
  async function hoverAt(files: Record<string, string>, needle: string) {
    const dir = writeApp(files);
    const analysis = await analyseApp(dir, new Map());
    const file = analysis.files.get("app.wo")!;
    const symbol = symbolAt(file.ast, file.source.text.indexOf(needle) + 1, analysis.types)!;
    return hoverMarkdown(symbol, analysis)!;
  }

  it("shows the policy summary of a type with policy lines", async () => {
    const md = await hoverAt({ "app.wo": app }, "Post {");
    expect(md).toContain("**Policies** (an action no line grants is denied; the owner bypasses them):");
    expect(md).toContain(
      "- read: anyone when status == Published; or any signed-in caller when author == $session.user",
    );
    expect(md).toContain("- write: role Editor");
    expect(md).toContain("- delete: owner only");
  });

  it("says nothing about policies for a type without any", async () => {
    const md = await hoverAt({ "app.wo": app }, "Author {");
    expect(md).not.toContain("Policies");
  });

  it("while the app has errors, shows the lines as written", async () => {
    const md = await hoverAt({ "app.wo": `${app}type Broken { x: Nope }\n` }, "Post {");
    expect(md).toContain("- policy read … when status == Published");
    expect(md).toContain("- policy write");
  });
});
