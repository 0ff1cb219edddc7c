// The synthetic app of the compile benches (check.mjs and build.mjs): 1,000 types × 10 fields
// in 100 files.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const TYPES = 1000;
export const FIELDS = 10;
export const FILES = 100;

/** Ten fields per type covering scalars, optionals, defaults, unions, a struct, a ref. */
export function typeSource(i) {
  const prev = i > 0 ? `ref T${i - 1}` : "Text";
  return [
    `-- Synthetic type ${i}.`,
    `@table(index: [code])`,
    `type T${i} {`,
    `  code: SKU @unique`,
    `  title: Text`,
    `  body: Markdown?`,
    `  count: Int = 0`,
    `  price: Money`,
    `  status: Draft | Live | Gone = Draft`,
    `  created_at: Timestamp = now()`,
    `  link: ${prev}`,
    `  tags: [Text]?`,
    `  meta: { source: Text?, weight: Float = 1.5 }?`,
    `  service rest "/api/t${i}" expose list, get, create, update, delete`,
    `}`,
    ``,
  ].join("\n");
}

/** Writes the app's `.wo` files into `dir`. */
export function writeSyntheticApp(dir, { types = TYPES, files = FILES } = {}) {
  const perFile = types / files;
  for (let f = 0; f < files; f++) {
    let text = "";
    for (let k = 0; k < perFile; k++) text += typeSource(f * perFile + k);
    writeFileSync(join(dir, `part${String(f).padStart(3, "0")}.wo`), text);
  }
}
