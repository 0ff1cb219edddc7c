// The explorer and /docs in a real browser (Debian's Chromium, headless, driven by
// playwright-core) against real `wo run`s: browse a type, create rows through the generated
// form and see them listed (with paging), call an MCP tool from the page, read the operations in
// Swagger UI, and use a token-protected server. No page may log an error (a CSP violation is
// one), and app text must never become markup. Screenshots go to test-output/ for a person to look at.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { copyApp, removeApp, repoRoot, startWo, type WoProcess } from "../support/wo-process.js";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

const outputDir = join(repoRoot, "test-output");
const token = "explorer-browser-test-token";
let browser: Browser;
let blog: { wo: WoProcess; appDir: string };
let guarded: { wo: WoProcess; appDir: string };

beforeAll(async () => {
  mkdirSync(outputDir, { recursive: true });
  const blogDir = copyApp("samples/blog");
  // A token, and app text that would run as script if the page ever used it as HTML.
  const guardedDir = copyApp("samples/hello");
  writeFileSync(
    join(guardedDir, "wo.toml"),
    'name = "hello"\nversion = "0.1.0"\ndescription = "<img src=x id=pwn-docs> *not emphasis* [link](https://example.com)"\n\n[server]\ntoken_env = "WO_EXPLORER_BROWSER_TOKEN"\n',
  );
  writeFileSync(
    join(guardedDir, "note.wo"),
    '-- <img src=x onerror="window.pwned=1">Notes\ntype Note {\n  body: Text\n\n  service rest "/api/notes" expose list, create\n}\n',
  );
  const [a, b, launched] = await Promise.all([
    startWo([blogDir, "--listen", "127.0.0.1:0"]),
    startWo([guardedDir, "--listen", "127.0.0.1:0"], { env: { WO_EXPLORER_BROWSER_TOKEN: token } }),
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    }),
  ]);
  blog = { wo: a, appDir: blogDir };
  guarded = { wo: b, appDir: guardedDir };
  browser = launched;
});
afterAll(async () => {
  await browser?.close();
  for (const s of [blog, guarded]) {
    if (!s) continue;
    await s.wo.stop();
    removeApp(s.appDir);
  }
});

/** A fresh tab whose console errors and uncaught exceptions are collected. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, errors };
}

const text = async (page: Page, selector: string) => (await page.locator(selector).allTextContents()).join("\n");

/** A row made over REST on the blog sample, as a test's starting data. */
const postJson = (path: string, body: unknown) =>
  fetch(blog.wo.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then((r) => r.json() as Promise<{ id: number }>);

describe("explorer", () => {
  it("browses a type, creates rows through the form, lists them page by page, and calls an MCP tool", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${blog.wo.url}/`);
    await page.locator("#app-name", { hasText: "blog" }).waitFor();
    expect(await text(page, "#app-description")).toBe(
      "A small blog: authors write posts, readers comment, posts carry tags.",
    );
    expect(await text(page, ".card h3")).toBe(["Author", "Comment", "Post", "Tag", "Tagging"].join("\n"));

    // Browse a type: its fields, then its (empty) rows.
    await page.locator("#type-list a", { hasText: "Author" }).click();
    await page.locator("main h2", { hasText: "Author" }).waitFor();
    expect(await text(page, "main table.grid td.mono")).toContain("email\nEmail");
    await page.locator(".rows p", { hasText: "No rows." }).waitFor();

    // Create two rows through the generated form.
    await page.locator("button.op", { hasText: "POST /api/authors" }).first().click();
    for (const [name, email, level] of [
      ["Ada Lovelace", "ada@example.com", "Editor"],
      ["Grace Hopper", "grace@example.com", "Admin"],
    ]) {
      await page.locator(".call-box input[name=name]").fill(name!);
      await page.locator(".call-box input[name=email]").fill(email!);
      await page.locator(".call-box select[name=level]").selectOption({ label: level! });
      await page.locator(".call-box button[type=submit]").click();
      // The second submit finds the first's 201 still shown: wait for this call's own answer (the
      // response body, pretty-printed, names the new row's email).
      await page.locator(".call-box pre.http", { hasText: `"email": "${email}"` }).waitFor();
      await page.locator(".call-box pre.status", { hasText: "HTTP/1.1 201 Created" }).waitFor();
      const exchange = await text(page, ".call-box pre.http");
      expect(exchange).toContain(
        "POST /api/authors HTTP/1.1\naccept: application/json\ncontent-type: application/json",
      );
      expect(exchange).toContain(`{"name":"${name}","email":"${email}","level":"${level}"}`);
      expect(exchange).toMatch(/location: \/api\/authors\/\d+/);
      // The rows reload after a write: the new row is listed.
      await page.locator(".rows table.data td", { hasText: name! }).waitFor();
    }
    await page.screenshot({ path: join(outputDir, "explorer.png"), fullPage: true });

    // Paging: one row per page. The filters fold away under the rows until opened.
    expect(await page.locator(".rows input[name=limit]").isVisible()).toBe(false);
    await page.locator(".rows details.filters summary").click();
    await page.locator(".rows input[name=limit]").fill("1");
    await page.locator(".rows button[type=submit]").click();
    await page.locator(".pager", { hasText: "1 row · page 1" }).waitFor();
    expect(await text(page, ".rows table.data")).toContain("Ada Lovelace");
    expect(await text(page, ".rows table.data")).not.toContain("Grace Hopper");
    await page.locator(".pager button", { hasText: "Next page" }).click();
    await page.locator(".pager", { hasText: "page 2" }).waitFor();
    expect(await text(page, ".rows table.data")).toContain("Grace Hopper");
    // A filter: the enum is a select.
    await page.locator(".rows input[name=limit]").fill("");
    await page.locator(".rows select[name=level]").selectOption({ label: "Admin" });
    await page.locator(".rows button[type=submit]").click();
    await page.locator(".pager", { hasText: "1 row · page 1" }).waitFor();
    expect(await text(page, ".rows table.data")).toContain("Grace Hopper");
    expect(await text(page, ".rows table.data")).not.toContain("Ada Lovelace");

    // An MCP tool from the sidebar: the page opens a session and calls tools/call.
    await page.locator("#tool-list a", { hasText: "author_get" }).click();
    await page.locator("main h2", { hasText: "author_get" }).waitFor();
    await page.locator(".call-box input[name=id]").fill("2");
    await page.locator(".call-box button[type=submit]").click();
    await page.locator(".call-box pre.status", { hasText: "HTTP/1.1 200 OK" }).waitFor();
    const call = await text(page, ".call-box pre.http");
    expect(call).toContain("POST /mcp HTTP/1.1");
    expect(call).toContain('"method":"tools/call","params":{"name":"author_get","arguments":{"id":2}}');
    expect(call).toMatch(/mcp-session-id: [0-9a-f-]+/);
    expect(call).toContain('"structuredContent": {');
    expect(call).toContain('"name": "Grace Hopper"');
    // The tool's result is shown as JSON above the raw exchange, not as an escaped string.
    expect(await text(page, ".call-box pre.tool-result")).toContain('"name": "Grace Hopper"');
    await page.screenshot({ path: join(outputDir, "explorer-mcp.png"), fullPage: true });

    expect(errors).toEqual([]);
    await page.close();
  });

  it("links a tag to a post through the relation's form: both path parameters come from the form", async () => {
    const author = await postJson("/api/authors", { name: "Linus", email: "linus@example.com" });
    const post = await postJson("/api/posts", { title: "Tagged", slug: "tagged", body: "b", author: author.id });
    const tag = await postJson("/api/tags", { label: "explorer" });
    const { page, errors } = await openPage();
    await page.goto(`${blog.wo.url}/#type=Post`);
    await page.locator("main h2", { hasText: "Post" }).waitFor();
    await page.locator("button.op", { hasText: "PUT /api/posts/:id/tags/:tag" }).first().click();
    await page.locator(".call-box input[name=id]").fill(String(post.id));
    await page.locator(".call-box input[name=tag]").fill(String(tag.id));
    await page.locator(".call-box button[type=submit]").click();
    await page.locator(".call-box pre.status", { hasText: "HTTP/1.1 201 Created" }).waitFor();
    expect(await text(page, ".call-box pre.http")).toContain(`PUT /api/posts/${post.id}/tags/${tag.id} HTTP/1.1`);
    const tags = await fetch(`${blog.wo.url}/api/posts/${post.id}/tags`).then((r) => r.json() as Promise<any>);
    expect(tags.items.map((t: { label: string }) => t.label)).toEqual(["explorer"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("opens a row, follows a ref, edits a field and deletes a row, each with its exchange", async () => {
    const author = await postJson("/api/authors", { name: "Edsger", email: "edsger@example.com" });
    const post = await postJson("/api/posts", { title: "On rows", slug: "on-rows", body: "b", author: author.id });
    const comment = await postJson("/api/comments", { post: post.id, author_name: "Reader", body: "Nice." });
    const { page, errors } = await openPage();

    // The post's row from the type's list: its id is a link.
    await page.goto(`${blog.wo.url}/#type=Post`);
    await page
      .locator(".rows a.row-link", { hasText: String(post.id) })
      .first()
      .waitFor();
    await page.locator(`.rows a.row-link[href="#type=Post&id=${post.id}"]`).click();
    await page.locator("main h2", { hasText: `Post ${post.id}` }).waitFor();
    await page.locator("table.record-fields td", { hasText: "On rows" }).waitFor();
    expect(await text(page, ".record details.raw pre.http")).toContain(`GET /api/posts/${post.id} HTTP/1.1`);
    // Its relations are listed with links: the comment under it.
    await page.locator("section.relation[data-field=comments] td", { hasText: "Nice." }).waitFor();

    // Follow the author ref to the author's row, whose posts list links back.
    await page.locator(`table.record-fields a.ref-link[href="#type=Author&id=${author.id}"]`).click();
    await page.locator("main h2", { hasText: `Author ${author.id}` }).waitFor();
    // The heading comes first, the fields once the row's GET has answered.
    await page.locator("table.record-fields td", { hasText: "edsger@example.com" }).waitFor();
    await page.locator("section.relation[data-field=posts] td", { hasText: "On rows" }).waitFor();

    // Edit a field: the form starts from the row, and only the change is sent.
    await page.locator("button.edit").click();
    expect(await page.locator(".edit-form input[name=name]").inputValue()).toBe("Edsger");
    await page.locator(".edit-form input[name=name]").fill("Edsger Dijkstra");
    await page.locator(".edit-form button[type=submit]").click();
    await page.locator(".call-box p.good", { hasText: `Saved Author ${author.id}.` }).waitFor();
    const edit = await text(page, ".call-box pre.http");
    expect(edit).toContain(`PATCH /api/authors/${author.id} HTTP/1.1`);
    expect(edit).toContain('{"name":"Edsger Dijkstra"}');
    expect(await text(page, "table.record-fields")).toContain("Edsger Dijkstra");
    const stored = (await fetch(`${blog.wo.url}/api/authors/${author.id}`).then((r) => r.json())) as { name: string };
    expect(stored.name).toBe("Edsger Dijkstra");

    // Delete the comment from its own row.
    await page.goto(`${blog.wo.url}/#type=Comment&id=${comment.id}`);
    await page.locator("main h2", { hasText: `Comment ${comment.id}` }).waitFor();
    await page.locator(".row-actions button.danger", { hasText: "Delete" }).click();
    await page.locator(".call-box button.danger", { hasText: `Delete Comment ${comment.id}` }).click();
    await page.locator(".call-box p.good", { hasText: `Deleted Comment ${comment.id}.` }).waitFor();
    expect(await text(page, ".call-box pre.http")).toContain(`DELETE /api/comments/${comment.id} HTTP/1.1`);
    expect(await text(page, ".call-box pre.status")).toContain("HTTP/1.1 204 No Content");
    expect((await fetch(`${blog.wo.url}/api/comments/${comment.id}`)).status).toBe(404);
    await page.screenshot({ path: join(outputDir, "explorer-row.png"), fullPage: true });

    expect(errors).toEqual([]);
    await page.close();
  });

  it("/docs lists the operations from /openapi.json", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${blog.wo.url}/docs`);
    await page.locator(".opblock-summary-path", { hasText: "/api/authors" }).first().waitFor();
    const paths = await page.locator(".opblock-summary-path").allTextContents();
    // 19 CRUD and stub operations, plus the blog's relations (spec/rest.md "Relations") and Tag's delete.
    expect(paths.length).toBe(26);
    expect(paths).toContain("/api/posts/{id}");
    expect(paths).toContain("/api/posts/{id}/tags/{tag}");
    // Expanding an operation renders its schemas: still no CSP violation.
    await page.locator(".opblock-summary", { hasText: "Create author" }).click();
    await page.locator(".opblock-body").first().waitFor();
    await page.screenshot({ path: join(outputDir, "docs.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("with a token: the page asks for it, then loads; app text stays text", async () => {
    const { page, errors } = await openPage();
    // Swagger UI without the token says where to enter it.
    await page.goto(`${guarded.wo.url}/docs`);
    await page.locator("#token-note").waitFor();
    await page.goto(`${guarded.wo.url}/`);
    await page.locator("#token-form").waitFor();
    expect(await text(page, "#status")).toBe("Enter the bearer token to see this app.");
    expect(await text(page, "#type-list")).toBe("");
    await page.locator("#token-input").fill(token);
    await page.locator("#token-form button[type=submit]").click();
    await page.locator("#type-list a", { hasText: "Note" }).click();
    await page.locator("main h2", { hasText: "Note" }).waitFor();
    expect(await text(page, "main > section > p.muted")).toBe('<img src=x onerror="window.pwned=1">Notes');
    expect(await page.locator("main img").count()).toBe(0);
    // A row value is text too, and the data requests carried the token.
    await page.locator("button.op", { hasText: "POST /api/notes" }).click();
    await page.locator(".call-box input[name=body]").fill("<b>not bold</b>");
    await page.locator(".call-box button[type=submit]").click();
    await page.locator(".call-box pre.status", { hasText: "HTTP/1.1 201 Created" }).waitFor();
    expect(await text(page, ".call-box pre.http")).toContain("authorization: Bearer ••••••");
    await page.locator(".rows table.data td", { hasText: "<b>not bold</b>" }).waitFor();
    expect(await page.locator("main b").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // The 401s before the token was entered are the only errors the pages logged.
    // Swagger UI in the same tab uses the token the explorer keeps.
    await page.goto(`${guarded.wo.url}/docs`);
    await page.locator(".opblock-summary-path", { hasText: "/api/notes" }).first().waitFor();
    expect(await page.locator("#token-note").isVisible()).toBe(false);
    // Swagger UI renders descriptions as Markdown with HTML: /docs shows the text as written.
    expect(await text(page, ".info .description")).toBe(
      "<img src=x id=pwn-docs> *not emphasis* [link](https://example.com)",
    );
    expect(await page.locator("#swagger-ui img, #swagger-ui .info em, #swagger-ui .info .description a").count()).toBe(
      0,
    );
    expect(errors.filter((e) => !e.includes("401"))).toEqual([]);
    await page.close();
  });
});
