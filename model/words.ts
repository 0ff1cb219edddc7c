// English for what wo writes to people: type and method names as words for tool titles and
// descriptions (`BlogPost` → "blog post" / "blog posts", `set_price` → "set price"), counts
// ("3 rows") and sentences. Shared by the emitters, the runtime's messages and the CLI.
import { snakeCase } from "./naming.js";

export function words(name: string): string {
  return snakeCase(name).replace(/_+/g, " ").trim();
}

/** Plural of the last word; enough English for type names (category → categories, box → boxes). */
export function pluralWords(name: string): string {
  const w = words(name);
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(w)) return `${w}es`;
  return `${w}s`;
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "a" or "an" before a word: "an article", "a user" ("u" + consonant + vowel sounds like "you"). */
export function article(word: string): string {
  if (/^u[^aeiou][aeiou]/i.test(word)) return "a";
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

/** A `--` doc as one sentence: lines joined, a full stop added when it ends without one. */
export function sentence(doc: string): string {
  const text = doc.trim().replace(/\s*\n\s*/g, " ");
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** `3 rows`, `1 row`: a count and its noun, plural unless the count is one. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
