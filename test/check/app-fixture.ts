// Test fixtures: write a small app into a fresh temp directory, and find the ┆ cursor that
// marks where a diagnostic is expected.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";

export const cursor = "┆";

/** Writes `files` (relative path → text, cursors removed) into a new temp dir; returns it. */
export function writeApp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wo-check-"));
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text.split(cursor).join(""));
  }
  return dir;
}

/** `file:line:col` of the first cursor in `files`, or undefined. */
export function cursorPosition(files: Record<string, string>): string | undefined {
  for (const [path, text] of Object.entries(files)) {
    const at = text.indexOf(cursor);
    if (at < 0) continue;
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const col = at - (before.lastIndexOf("\n") + 1) + 1;
    return `${path}:${line}:${col}`;
  }
  return undefined;
}

/** writeApp for one test file: every app it writes is deleted after the test that wrote it. */
export function appsDeletedAfterEach(): (files: Record<string, string>) => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return (files) => {
    const dir = writeApp(files);
    dirs.push(dir);
    return dir;
  };
}
