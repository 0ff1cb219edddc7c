// Parse bench: the syntax front end alone (lex + segment + parse, no checker), on
// (a) 1,000 types × 10 fields spread over 100 files, (b) one 10 MB file of declarations.
// Imports dist/ (run `npm run build` first). Prints best and median of several runs and peak RSS.
// Target (brief h1): (a) well under 1 s in total.

import { parseSource } from "../dist/compiler/syntax/parse.js";

const fieldTypes = [
  "SKU @unique",
  "Text",
  "Markdown?",
  "Int = 0",
  "Money",
  "Draft | Live | Gone = Draft",
  "Timestamp = now()",
  "ref T0",
  "[Text]?",
  "{ source: Text?, weight: Float = 1.5 }?",
];

const files = [];
for (let f = 0; f < 100; f++) {
  let s = "";
  for (let t = 0; t < 10; t++) {
    const i = f * 10 + t;
    s += `-- Type ${i}.\n@table(index: [f0])\ntype T${i} {\n`;
    fieldTypes.forEach((ty, k) => (s += `  f${k}: ${ty}\n`));
    s += `  service rest "/api/t${i}" expose list, get, create, update, delete\n}\n\n`;
  }
  files.push(s);
}
let big = "";
for (let n = 0; big.length < 10 * 1024 * 1024; n++) big += `type B${n} {\n  a: Int = 1\n  b: Text?\n  c: ref B0\n}\n`;

const time = (fn) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `best ${s[0].toFixed(0)} ms, median ${s[Math.floor(s.length / 2)].toFixed(0)} ms`;
};

parseSource("warm.wo", files[0]);
const runs = [];
for (let r = 0; r < 5; r++) runs.push(time(() => files.forEach((text, i) => parseSource(`f${i}.wo`, text))));
const bytes = files.reduce((n, s) => n + s.length, 0);
console.log(`1,000 types x 10 fields, 100 files (${(bytes / 1024).toFixed(0)} KB): ${stats(runs)}`);
const bigRuns = [];
for (let r = 0; r < 2; r++) bigRuns.push(time(() => parseSource("big.wo", big)));
console.log(`one 10 MB file: ${stats(bigRuns)}`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
