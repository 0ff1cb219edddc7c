// A file's text, or undefined when it cannot be read: for files an app or a build may lack
// (`wo.toml`, the build's own records), where absence is an answer, not an error.

import { readFile } from "node:fs/promises";

export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}
