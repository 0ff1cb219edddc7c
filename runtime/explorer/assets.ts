// The files the explorer (`GET /`) and the API docs (`GET /docs`) load, as an explicit table from
// URL path to file: a path not in the table is not served, so no URL can name any other file
// (no `..`, no encoded separators, no symlinks to follow). The explorer's own files live in
// `runtime/explorer/public/` of the wo package and are served from there (tsc does not copy
// them to dist/, and need not); Swagger UI's come from the installed swagger-ui-dist package.
// Each file is read once, on first request, and kept in memory.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
}

const js = "text/javascript; charset=utf-8";
const css = "text/css; charset=utf-8";
const html = "text/html; charset=utf-8";

/** URL path → where the file is (`wo`: the package's explorer folder; `swagger`: swagger-ui-dist) and its type. */
const table: Record<string, { from: "wo" | "swagger"; name: string; contentType: string }> = {
  "/explorer/explorer.js": { from: "wo", name: "explorer.js", contentType: js },
  "/explorer/schema-form.js": { from: "wo", name: "schema-form.js", contentType: js },
  "/explorer/explorer.css": { from: "wo", name: "explorer.css", contentType: css },
  "/docs/docs.js": { from: "wo", name: "docs.js", contentType: js },
  "/docs/docs.css": { from: "wo", name: "docs.css", contentType: css },
  "/docs/swagger-ui.css": { from: "swagger", name: "swagger-ui.css", contentType: css },
  "/docs/swagger-ui-bundle.js": { from: "swagger", name: "swagger-ui-bundle.js", contentType: js },
};

/** The two HTML pages; served at `/` (when the client prefers HTML) and `/docs`. */
export const pages = {
  explorer: { from: "wo", name: "index.html", contentType: html },
  docs: { from: "wo", name: "docs.html", contentType: html },
} as const;

/** The URL paths of the static files (what may load without the bearer token: they hold no data). */
export const assetPaths: ReadonlySet<string> = new Set(Object.keys(table));

const cache = new Map<string, Asset>();

/** The static file at URL `path`, or undefined when the table has none. */
export function assetAt(path: string): Asset | undefined {
  const entry = Object.hasOwn(table, path) ? table[path] : undefined;
  return entry && load(entry);
}

export function page(which: keyof typeof pages): Asset {
  return load(pages[which]);
}

function load(entry: { from: "wo" | "swagger"; name: string; contentType: string }): Asset {
  const file = join(entry.from === "wo" ? explorerDir() : swaggerDir(), entry.name);
  let asset = cache.get(file);
  if (!asset) {
    const bytes = readFileSync(file);
    asset = {
      body: new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength),
      contentType: entry.contentType,
    };
    cache.set(file, asset);
  }
  return asset;
}

let explorerFolder: string | undefined;
/**
 * `<package root>/runtime/explorer/public`. The root is the nearest folder above this module
 * with a package.json: this file runs as runtime/explorer/assets.ts (tests, in process) and as
 * dist/runtime/explorer/assets.js (the CLI), at different depths.
 */
function explorerDir(): string {
  if (explorerFolder) return explorerFolder;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (explorerFolder = join(dir, "runtime", "explorer", "public"));
}

let swaggerFolder: string | undefined;
function swaggerDir(): string {
  return (swaggerFolder ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json")));
}
