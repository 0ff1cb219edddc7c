// The background instance's log is bounded: past the limit it moves to wo.log.1 and starts anew.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { openLogFile } from "../../runtime/ops/log-file.js";
import { tempDir } from "../support/wo-process.js";

it("rotates at the size limit, keeping one previous file, both 0600", () => {
  const file = join(tempDir("wo-log-"), "wo.log");
  const log = openLogFile(file, 100);
  for (let i = 0; i < 5; i++) log.write(`${String(i).repeat(39)}\n`); // 40 bytes each
  expect(readFileSync(`${file}.1`, "utf8")).toBe(`${"2".repeat(39)}\n${"3".repeat(39)}\n`);
  expect(readFileSync(file, "utf8")).toBe(`${"4".repeat(39)}\n`);
  expect(lstatSync(file).mode & 0o777).toBe(0o600);
  expect(lstatSync(`${file}.1`).mode & 0o777).toBe(0o600);
  expect(existsSync(`${file}.2`)).toBe(false);
});
