// The end-to-end check the language tests share: write an app, run the real `wo test` on it
// (bin/wo.js, a child process), and expect every one of its `passed` tests to pass.

import { expect } from "vitest";
import { removeApp, runWoCommand, writeApp } from "./wo-process.js";

export async function expectWoTestPasses(name: string, files: Record<string, string>, passed: number): Promise<void> {
  const dir = writeApp(name, files);
  try {
    const { code, stdout } = await runWoCommand(["test", dir]);
    expect(stdout).toContain(`${passed} passed, 0 failed`);
    expect(code).toBe(0);
  } finally {
    removeApp(dir);
  }
}
