// `wo lsp` over stdio, as an editor uses it: the real CLI (node bin/wo.js, compiled dist/ —
// `npx tsc -p tsconfig.json` first) spoken to with vscode-jsonrpc, on an app in a temp folder.
// One server for the file; the tests run in order, like one editing session (the first opens
// post.wo, later ones edit it).

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import { checkApp } from "../../compiler/index.js";
import { copyApp, removeApp, repoRoot, writeApp } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 60_000 });

const authorText = `-- Someone who writes for the blog.
type Author {
  name: Text
  -- Where the editors reach the author.
  email: Email @unique
  service rest "/api/authors" expose list, get
}
`;
const postText = (authorType: string) => `class Post {
  title: Text
  author: ref ${authorType}
  fn retitle(title: Text) in txn {
    update self set title = title
  }
  service rest "/api/posts" expose list, retitle
}
`;

const nestedText = `type Reader {
  name: Text
  fn go() -> Int {
    return 1
  }
  service rest "/api/authors" expose list
}
`;

interface Published {
  uri: string;
  version?: number;
  diagnostics: {
    code: string;
    severity: number;
    message: string;
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
  }[];
}

let appDir: string;
let blogDir: string;
let child: ChildProcess;
let rpc: MessageConnection;
const published: Published[] = [];
let notify: () => void = () => {};

const uri = (file: string, dir = appDir) => pathToFileURL(join(dir, file)).href;

/** Resolves with the first diagnostics for `file` published after `since` that satisfy `test`. */
async function diagnosticsFor(
  file: string,
  since: number,
  test: (p: Published) => boolean,
  dir = appDir,
): Promise<Published> {
  for (;;) {
    const found = published.slice(since).find((p) => p.uri === uri(file, dir) && test(p));
    if (found) return found;
    await new Promise<void>((resolve) => (notify = resolve));
  }
}

let version = 1;
function change(file: string, text: string): void {
  void rpc.sendNotification("textDocument/didChange", {
    textDocument: { uri: uri(file), version: ++version },
    contentChanges: [{ text }],
  });
}

beforeAll(async () => {
  appDir = writeApp("lspapp", {
    "author.wo": authorText,
    "post.wo": postText("Author"),
    // An app of its own inside the workspace: to the outer app its REST path is taken.
    "nested/wo.toml": 'name = "nested"\n',
    "nested/reader.wo": nestedText,
  });
  child = spawn(process.execPath, ["bin/wo.js", "lsp", "--stdio"], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "inherit"],
  });
  rpc = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  rpc.onNotification("textDocument/publishDiagnostics", (p: Published) => {
    published.push(p);
    notify();
  });
  rpc.listen();
  const init = await rpc.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(appDir).href,
    workspaceFolders: [{ uri: pathToFileURL(appDir).href, name: "lspapp" }],
    capabilities: {},
  });
  expect(init).toMatchObject({
    capabilities: { hoverProvider: true, definitionProvider: true, completionProvider: {} },
  });
  await rpc.sendNotification("initialized", {});
  await rpc.sendNotification("textDocument/didOpen", {
    textDocument: { uri: uri("author.wo"), languageId: "wo", version: 1, text: authorText },
  });
});

afterAll(async () => {
  rpc?.dispose();
  // Only when a test failed before the last one: that one ends the server.
  if (child && child.exitCode === null) child.kill();
  if (appDir) removeApp(appDir);
  if (blogDir) removeApp(blogDir);
});

describe("wo lsp", () => {
  it("refuses an unknown option with a usage line and exit 2", () => {
    const r = spawnSync(process.execPath, ["bin/wo.js", "lsp", "--socket=9000"], { cwd: repoRoot, encoding: "utf8" });
    expect(r.status).toBe(2);
    // The usage error every command gives (cli/commands/help.ts), from the command table.
    expect(r.stderr).toBe("wo lsp: unknown option '--socket'\nusage: wo lsp [--stdio]\nwo help lsp lists its flags.\n");
    expect(r.stdout).toBe("");
  });

  it("publishes the check's diagnostics with code and exact range, and clears them once fixed", async () => {
    const since = published.length;
    await rpc.sendNotification("textDocument/didOpen", {
      textDocument: { uri: uri("post.wo"), languageId: "wo", version: 1, text: postText("Autor") },
    });
    const broken = await diagnosticsFor("post.wo", since, (p) => p.diagnostics.length > 0);
    expect(broken.diagnostics).toEqual([
      {
        code: "WO2001",
        severity: 1,
        source: "wo",
        message: "Unknown type 'Autor'. Did you mean 'Author'?",
        range: { start: { line: 2, character: 14 }, end: { line: 2, character: 19 } },
      },
    ]);

    const fixedSince = published.length;
    change("post.wo", postText("Author"));
    await diagnosticsFor("post.wo", fixedSince, (p) => p.diagnostics.length === 0);
  });

  it("checks the whole app with unsaved text: renaming a type in one buffer breaks the other file", async () => {
    const since = published.length;
    change("author.wo", authorText.replace("type Author", "type Writer"));
    const broken = await diagnosticsFor("post.wo", since, (p) => p.diagnostics.length > 0);
    expect(broken.diagnostics.map((d) => [d.code, d.range.start])).toEqual([["WO2001", { line: 2, character: 14 }]]);

    const fixedSince = published.length;
    change("author.wo", authorText);
    await diagnosticsFor("post.wo", fixedSince, (p) => p.diagnostics.length === 0);
  });

  it("re-checks when the client reports a file created or deleted on disk", async () => {
    const since = published.length;
    writeFileSync(join(appDir, "extra.wo"), "type Extra {\n  at: Timestamp\n  by: ref Nobody\n}\n");
    await rpc.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: uri("extra.wo"), type: 1 }] });
    const created = await diagnosticsFor("extra.wo", since, () => true);
    expect(created.diagnostics.map((d) => [d.code, d.range.start])).toEqual([["WO2001", { line: 2, character: 10 }]]);

    const deletedSince = published.length;
    rmSync(join(appDir, "extra.wo"));
    await rpc.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: uri("extra.wo"), type: 3 }] });
    expect((await diagnosticsFor("extra.wo", deletedSince, () => true)).diagnostics).toEqual([]);
  });

  it("gives every file of an app, open or not, the diagnostics wo check gives (a sample app with wo.toml, outside the workspace)", async () => {
    blogDir = copyApp("samples/blog");
    // Warnings in files that are never opened (the sample itself checks clean).
    writeFileSync(join(blogDir, "notes.wo"), "@experimental\ntype Note {\n  text: Text\n}\n");
    writeFileSync(join(blogDir, "memos.wo"), "@draft\ntype Memo {\n  text: Text\n}\n");
    const expected = await checkApp(blogDir);
    const byFile = new Map<string, string[]>();
    for (const d of expected.diagnostics)
      byFile.set(d.span.file, [
        ...(byFile.get(d.span.file) ?? []),
        `${d.code} ${d.span.line}:${d.span.col} ${d.message}`,
      ]);
    expect(byFile.size).toBeGreaterThan(1);

    const since = published.length;
    const text = readFileSync(join(blogDir, "posts.wo"), "utf8");
    await rpc.sendNotification("textDocument/didOpen", {
      textDocument: { uri: uri("posts.wo", blogDir), languageId: "wo", version: 1, text },
    });
    for (const [display, lines] of byFile) {
      const file = display.slice(display.lastIndexOf("/") + 1);
      const got = await diagnosticsFor(file, since, () => true, blogDir);
      expect(
        got.diagnostics.map((d) => `${d.code} ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`),
      ).toEqual(lines);
      expect(got.diagnostics.every((d) => d.severity === 2)).toBe(true);
    }
  });

  it("a folder with its own wo.toml is its own app: its files get only that app's diagnostics", async () => {
    const since = published.length;
    await rpc.sendNotification("textDocument/didOpen", {
      textDocument: { uri: uri("nested/reader.wo"), languageId: "wo", version: 1, text: nestedText },
    });
    const own = await diagnosticsFor("nested/reader.wo", since, () => true);
    expect(own.diagnostics.map((d) => d.code)).toEqual(["WO2103"]);
    // The outer app (checked since the first test, where the path clashes: WO3004) never
    // claimed the nested file.
    expect(
      published.filter((p) => p.uri === uri("nested/reader.wo")).flatMap((p) => p.diagnostics.map((d) => d.code)),
    ).not.toContain("WO3004");
  });

  it("hover on a field shows its declaration and doc comment; on a type, its doc and fields", async () => {
    const field = await rpc.sendRequest("textDocument/hover", {
      textDocument: { uri: uri("author.wo") },
      position: { line: 4, character: 4 },
    });
    expect(field).toEqual({
      contents: {
        kind: "markdown",
        value: "```wo\nAuthor.email: Email @unique\n```\n\nWhere the editors reach the author.",
      },
      range: { start: { line: 4, character: 2 }, end: { line: 4, character: 7 } },
    });
    const type = (await rpc.sendRequest("textDocument/hover", {
      textDocument: { uri: uri("post.wo") },
      position: { line: 2, character: 16 },
    })) as { contents: { value: string } };
    expect(type.contents.value).toBe(
      "```wo\ntype Author {\n  name: Text\n  email: Email @unique\n}\n```\n\nSomeone who writes for the blog.",
    );
  });

  it("go to definition of a type name lands on its declaration in the other file", async () => {
    const target = await rpc.sendRequest("textDocument/definition", {
      textDocument: { uri: uri("post.wo") },
      position: { line: 2, character: 15 },
    });
    expect(target).toEqual({
      uri: uri("author.wo"),
      range: { start: { line: 1, character: 5 }, end: { line: 1, character: 11 } },
    });
  });

  it("completes type names at a type position", async () => {
    const text = postText("Author").replace("  title: Text\n", "  title: Text\n  editor: ref \n");
    change("post.wo", text);
    const items = (await rpc.sendRequest("textDocument/completion", {
      textDocument: { uri: uri("post.wo") },
      position: { line: 2, character: 14 },
    })) as { label: string }[];
    const labels = items.map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(["Author", "Post", "Text", "Int", "Timestamp"]));
    expect(labels).not.toContain("list");
  });

  it("completes expose entries: the built-in operations and the class's methods", async () => {
    const text = postText("Author").replace("expose list, retitle", "expose ");
    change("post.wo", text);
    const position = { line: 6, character: text.split("\n")[6]!.length };
    const items = (await rpc.sendRequest("textDocument/completion", {
      textDocument: { uri: uri("post.wo") },
      position,
    })) as { label: string }[];
    expect(items.map((i) => i.label)).toEqual([
      "list",
      "get",
      "create",
      "update",
      "delete",
      "subscribe",
      "me",
      "retitle",
    ]);
  });

  it("completes the fields of the type an insert, a select, an update … set or a backlink names", async () => {
    const lines = postText("Author").split("\n");
    lines.splice(2, 0, "  by: backlink Author.");
    lines.splice(
      5,
      1,
      "    insert Author { ",
      "    let n = count(select Author { name == title, ",
      "    update self set ",
    );
    const text = lines.join("\n");
    change("post.wo", text);
    const at = async (line: number) =>
      (
        (await rpc.sendRequest("textDocument/completion", {
          textDocument: { uri: uri("post.wo") },
          position: { line, character: lines[line]!.length },
        })) as { label: string }[]
      ).map((i) => i.label);
    expect(await at(2)).toEqual(["name", "email"]);
    expect(await at(5)).toEqual(["name", "email"]);
    expect(await at(6)).toEqual(["name", "email"]);
    // `by: backlink Author.` does not parse yet, so it is no field of Post.
    expect(await at(7)).toEqual(["title", "author"]);
    // Nothing inside a string or a comment.
    change("post.wo", text.replace('"/api/posts"', '"/api/ ').replace("  title: Text", "  title: Text -- ref "));
    expect(
      await rpc.sendRequest("textDocument/completion", {
        textDocument: { uri: uri("post.wo") },
        position: { line: 1, character: "  title: Text -- ref ".length },
      }),
    ).toEqual([]);
  });

  it("completes field names after self. and in @table(index: [...])", async () => {
    const text = postText("Author")
      .replace("title = title", "title = self.")
      .replace("class Post {", "@table(index: [])\nclass Post {");
    change("post.wo", text);
    const lines = text.split("\n");
    const selfLine = lines.findIndex((l) => l.includes("self."));
    const afterSelf = (await rpc.sendRequest("textDocument/completion", {
      textDocument: { uri: uri("post.wo") },
      position: { line: selfLine, character: lines[selfLine]!.length },
    })) as { label: string; detail: string }[];
    expect(afterSelf.map((i) => [i.label, i.detail])).toEqual([
      ["title", "Text"],
      ["author", "ref Author"],
    ]);
    const inIndex = (await rpc.sendRequest("textDocument/completion", {
      textDocument: { uri: uri("post.wo") },
      position: { line: 0, character: 15 },
    })) as { label: string }[];
    expect(inIndex.map((i) => i.label)).toEqual(["title", "author"]);
  });

  it("ends with exit code 0 after shutdown and exit", async () => {
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await rpc.sendRequest("shutdown");
    await rpc.sendNotification("exit");
    expect(await exited).toBe(0);
  });
});
