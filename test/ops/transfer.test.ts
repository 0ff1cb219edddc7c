// `wo export` / `wo import` end to end, as a user runs them: the real CLI on a real SQLite file
// and a real PostgreSQL server (test/support/postgres.ts). The round trip SQLite → JSONL →
// PostgreSQL → JSONL is byte-identical; a bad line is refused with its line, field and reason
// and nothing is imported; an export runs while `wo run` serves the same data folder.
import { spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { removeApp, repoRoot, startWo, tempDir, writeApp } from "../support/wo-process.js";

const app = {
  "wo.toml": 'name = "transfer"\n',
  "app.wo": `type Author {
  name: Text
  email: Email @unique
  balance: Money = 0 @readonly
  big: Int
  joined: Timestamp?
  score: Float?
  service rest "/api/authors" expose list, get, create
}
type Post {
  title: Text
  author: ref Author
  meta: { words: Int, lang: Text? }
  tags: [Text]
  related: [ref Post]?
  labels: multi Label via Labelling
  service rest "/api/posts" expose list, get, create
}
type Label {
  name: Text
  posts: multi Post via Labelling
  service rest "/api/labels" expose list, get, create
}
type Labelling link Post -> Label {
  note: Text?
}
`,
};

const header = {
  wo: "export",
  format: 1,
  app: "transfer",
  types: [
    { name: "Author", table: "author", fields: ["id", "name", "email", "balance", "big", "joined", "score"] },
    { name: "Post", table: "post", fields: ["id", "title", "author", "meta", "tags", "related"] },
    { name: "Label", table: "label", fields: ["id", "name"] },
    { name: "Labelling", table: "labelling", fields: ["id", "post", "label", "note"] },
  ],
};
const max = Number.MAX_SAFE_INTEGER;
const rows: [string, Record<string, unknown>][] = [
  // balance is @readonly: a create refuses it, an import keeps it as stored.
  [
    "Author",
    {
      id: 1,
      name: "Zoë 𝄞 \u2028 line",
      email: "Zoe@Example.org",
      balance: 12345,
      big: max,
      joined: "2026-01-02T03:04:05.678Z",
      score: -0.5,
    },
  ],
  ["Author", { id: 3, name: "", email: "b@x.org", balance: 0, big: -max, joined: null, score: 1e-7 }],
  // Post 2 refers forward to Post 5: refs are checked once every row is in.
  ["Post", { id: 2, title: "second", author: 3, meta: { words: 2, lang: null }, tags: [], related: [5] }],
  [
    "Post",
    {
      id: 5,
      title: '😀 \u2029 "quoted" \\ tab\t',
      author: 1,
      meta: { words: max, lang: "fr" },
      tags: ["a", "ü"],
      related: null,
    },
  ],
  ["Label", { id: 1, name: "x" }],
  ["Labelling", { id: 4, post: 5, label: 1, note: null }],
];
const line = (v: unknown) =>
  `${JSON.stringify(v).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)}\n`;
const input = line(header) + rows.map(([type, row]) => line({ type, row })).join("");

/** `wo <args>` with `stdin` as its input, to its end. */
function wo(args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(repoRoot, "bin/wo.js"), ...args], { cwd: repoRoot });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(stdin);
  return new Promise((res) => child.on("close", (code) => res({ code, stdout, stderr })));
}

function rowCounts(dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, "app.sqlite"), { readonly: true });
  try {
    const out: Record<string, number> = {};
    for (const t of ["author", "post", "label", "labelling"])
      out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get() as { n: number }).n;
    return out;
  } finally {
    db.close();
  }
}

let appDir: string;
let pg: PostgresServer;

beforeAll(async () => {
  appDir = writeApp("transfer", app);
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  if (appDir) removeApp(appDir);
});

describe("wo export and wo import", () => {
  it("round trip SQLite → JSONL → PostgreSQL → JSONL is byte-identical: unicode, 2^53−1, Money, Timestamps, structs, lists, nulls, links", async () => {
    const sqlite = tempDir("wo-import-");
    const imported = await wo(["import", appDir, "--db", sqlite], input);
    expect(imported.stderr).not.toContain("wo import:");
    expect(imported.stdout).toBe("imported 6 rows: Author 2, Post 2, Label 1, Labelling 1\n");
    expect(imported.code).toBe(0);

    const fromSqlite = await wo(["export", appDir, "--db", sqlite]);
    expect(fromSqlite.code).toBe(0);
    expect(fromSqlite.stdout).toBe(input);
    // The import is a write: one audit entry, the owner's, committed with the rows.
    const audit = await wo(["audit", appDir, "--db", sqlite, "--json"]);
    expect(JSON.parse(audit.stdout)).toMatchObject([
      { operation: "(import)", surface: "cli", principal: "owner", type: null, rowId: null, outcome: "ok" },
    ]);

    const url = await pg.createDatabase();
    const intoPg = await wo(["import", appDir, "--db", url], fromSqlite.stdout);
    expect(intoPg.stdout).toBe("imported 6 rows: Author 2, Post 2, Label 1, Labelling 1\n");
    const fromPg = await wo(["export", appDir, "--db", url]);
    expect(fromPg.code).toBe(0);
    expect(Buffer.from(fromPg.stdout)).toEqual(Buffer.from(fromSqlite.stdout));

    // Export is a reader: a database of another shape is refused, not migrated.
    const changed = writeApp("transfer", {
      ...app,
      "app.wo": app["app.wo"].replace("  score: Float?\n", "  score: Float?\n  extra: Text?\n"),
    });
    try {
      for (const db of [sqlite, url]) {
        const refused = await wo(["export", changed, "--db", db]);
        expect(refused.code, db).toBe(1);
        expect(refused.stderr, db).toContain("holds another shape than these .wo files describe");
        expect((await wo(["export", appDir, "--db", db])).stdout, db).toBe(input);
      }
    } finally {
      removeApp(changed);
    }
  }, 240_000);

  it("a bad line: its number, the field and the reason, and nothing imported", async () => {
    const cases: [string, (r: [string, Record<string, unknown>][]) => void, RegExp][] = [
      ["invalid email", (r) => (r[1]![1].email = "not an address"), /line 3: Author\.email: .*email/],
      ["too large an integer", (r) => (r[0]![1].big = max + 2), /line 2: Author\.big: /],
      ["a ref to no row", (r) => (r[3]![1].author = 9), /line 5: Post\.author: no Author with id 9 in the import/],
      ["a nested ref to no row", (r) => (r[2]![1].related = [5, 6]), /line 4: Post\.related\.1: no Post with id 6/],
      [
        "a taken @unique email, ignoring case",
        (r) => (r[1]![1].email = "zoe@EXAMPLE.org"),
        /line 3: Author\.email: .*unique/,
      ],
      ["an id twice", (r) => (r[1]![1].id = 1), /line 3: Author\.id: another Author of the import has id 1/],
      ["an unknown field", (r) => (r[4]![1].colour = "red"), /line 6: Label\.colour: /],
      ["a missing required field", (r) => delete r[3]![1].title, /line 5: Post\.title: is required/],
      ["a link endpoint to no row", (r) => (r[5]![1].label = 2), /line 7: Labelling\.label: no Label with id 2/],
    ];
    for (const [what, mutate, expected] of cases) {
      const copy = structuredClone(rows);
      mutate(copy);
      const text = line(header) + copy.map(([type, row]) => line({ type, row })).join("");
      const dir = tempDir("wo-import-bad-");
      const r = await wo(["import", appDir, "--db", dir], text);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toMatch(expected);
      expect(r.stderr, what).toContain("nothing was imported");
      expect(rowCounts(dir), what).toEqual({ author: 0, post: 0, label: 0, labelling: 0 });
    }
    const notJson = await wo(["import", appDir, "--db", tempDir("wo-import-bad-")], `${line(header)}{"type":\n`);
    expect(notJson.stderr).toMatch(/line 2: not JSON/);
  }, 240_000);

  it("refuses a store that holds rows, naming its tables", async () => {
    const dir = tempDir("wo-import-full-");
    expect((await wo(["import", appDir, "--db", dir], input)).code).toBe(0);
    const again = await wo(["import", appDir, "--db", dir], input);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      "the store is not empty: author (2 rows), post (2 rows), label (1 row), labelling (1 row)",
    );
  }, 120_000);

  it("exports while wo run serves the same data folder; ids minted after an import continue after the highest", async () => {
    const dir = tempDir("wo-export-live-");
    expect((await wo(["import", appDir, "--db", dir], input)).code).toBe(0);
    const server = await startWo([appDir, "--db", dir, "--listen", "127.0.0.1:0", "--quiet"]);
    try {
      const res = await fetch(`${server.url}/api/authors`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "new", email: "new@x.org", big: 1 }),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { id: number }).id).toBe(4);
      const live = await wo(["export", appDir, "--db", dir]);
      expect(live.code).toBe(0);
      expect(live.stdout.split("\n")[3]).toBe(
        line({
          type: "Author",
          row: { id: 4, name: "new", email: "new@x.org", balance: 0, big: 1, joined: null, score: null },
        }).trimEnd(),
      );
    } finally {
      await server.stop();
    }
  }, 120_000);
});
