// Store-level durability: a child process writes through the store and acknowledges each
// resolved write() on stdout; we SIGKILL it mid-stream, reopen, and find every acknowledged
// row. (The end-to-end version through `wo run` belongs to the REST tests.)
//
// The child needs the store as JavaScript: the store's own sources (with its dialect folders),
// and the model they import, are transpiled (no type check) into a folder under node_modules/.cache,
// where `better-sqlite3` still resolves.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { blog, tempDir } from "./fixture.js";

const root = join(import.meta.dirname, "..", "..");
const out = join(root, "node_modules", ".cache", `wo-store-durability-${process.pid}`);
let tmp: ReturnType<typeof tempDir>;

beforeAll(() => {
  tmp = tempDir();
  const sources = [
    ...["runtime/store", "model"].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" }).map((f) => join(dir, f)),
    ),
  ];
  for (const rel of sources.filter((f) => f.endsWith(".ts"))) {
    const js = ts.transpileModule(readFileSync(join(root, rel), "utf8"), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    }).outputText;
    mkdirSync(join(out, rel, ".."), { recursive: true });
    writeFileSync(join(out, rel.replace(/\.ts$/, ".js")), js);
  }
  writeFileSync(join(out, "package.json"), `{ "type": "module" }\n`);
  writeFileSync(
    join(out, "writer.js"),
    `import { openSqliteStore } from "./runtime/store/sqlite.js";
const [catalog, file] = [JSON.parse(process.argv[2]), process.argv[3]];
const { store } = await openSqliteStore({ file, catalog });
let n = 0;
// Eight writes in flight at a time, like concurrent requests.
async function worker() {
  for (;;) {
    const i = n++;
    const row = await store.write((tx) => tx.insert("author", { name: "n" + i, email: "e" + i + "@x" }));
    process.stdout.write(row.id + " " + row.name + "\\n");
  }
}
for (let w = 0; w < 8; w++) worker();
`,
  );
});
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  tmp.cleanup();
});

it("every write acknowledged before SIGKILL is there after reopening", async () => {
  const child = spawn(process.execPath, [join(out, "writer.js"), JSON.stringify(blog()), tmp.file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const acked = new Map<number, string>();
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, signal) => resolve(signal)),
  );
  let buffered = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        const [id, name] = line.split(" ");
        acked.set(Number(id), name!);
      }
      if (acked.size >= 150) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    child.once("exit", () => (acked.size >= 150 ? resolve() : reject(new Error(`writer exited early: ${stderr}`))));
  });
  expect(await exited).toBe("SIGKILL");

  // The killed process left its lock behind; it is stale now, and the reopen takes it over.
  const { store } = await openSqliteStore({ file: tmp.file, catalog: blog() });
  try {
    const rows = await store.read((tx) => tx.list("author"));
    const stored = new Map(rows.map((r) => [r.id as number, r.name as string]));
    for (const [id, name] of acked) expect(stored.get(id)).toBe(name);
    expect(stored.size).toBeGreaterThanOrEqual(acked.size);
  } finally {
    await store.close();
  }
});
