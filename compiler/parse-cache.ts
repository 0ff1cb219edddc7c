// ParseCache: the parses of one app's `.wo` files, kept between the checks of one process
// (`wo run --watch`'s build worker, compiler/build-worker.ts), so a rebuild after an edit parses
// only the files whose text changed. parseSource is a function of a file's app-relative path
// and text alone, and the checker and the emitters only read an AST (test/compiler/parse-cache.test.ts
// checks every sample with its ASTs frozen), so a kept parse is what parsing again would give.
import type { SourceFileAst } from "./ast.js";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import { parseSource } from "./syntax/parse.js";

export type Parsed = { ast: SourceFileAst; diagnostics: Diagnostic[] };

export class ParseCache {
  private kept = new Map<string, { text: string; parsed: Parsed }>();
  private seen = new Set<string>();

  /** parseSource(path, text), from the last check's parse when that file's text is the same. */
  parse(path: string, text: string): Parsed {
    this.seen.add(path);
    const kept = this.kept.get(path);
    if (kept !== undefined && kept.text === text) return kept.parsed;
    const parsed = parseSource(path, text);
    this.kept.set(path, { text, parsed });
    return parsed;
  }

  /** After a check: the parses of files it did not read (removed or renamed) are dropped. */
  endCheck(): void {
    for (const path of this.kept.keys()) if (!this.seen.has(path)) this.kept.delete(path);
    this.seen.clear();
  }
}
