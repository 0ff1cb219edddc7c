// How paths are shown to the person who typed the command: relative to the current directory,
// `/`-separated. One rule for checkApp's diagnostics and the warnings a fresh build replays.

import { isAbsolute, posix, relative } from "node:path";

/** `dir` (whose absolute path is `root`) as the user would type it from the current directory. */
export function displayPathOf(dir: string, root: string): string {
  const rel = relative(process.cwd(), root);
  if (rel === "") return ".";
  // Far outside the working directory a relative path is harder to read than the absolute one.
  if (rel.startsWith("..") && isAbsolute(dir)) return root.split("\\").join("/");
  return rel.split("\\").join("/");
}

/**
 * An app-relative file (`posts.wo`) under the displayed app folder; a shared folder's file
 * (`../../libs/types/a.wo`) by its real path (`shop/libs/types/a.wo`; spec/language.md "Workspaces").
 */
export function displayFile(displayDir: string, rel: string): string {
  if (rel.startsWith("../")) return posix.normalize(displayDir === "." ? rel : `${displayDir}/${rel}`);
  return displayDir === "." ? rel : `${displayDir}/${rel}`;
}
