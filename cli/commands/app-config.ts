// The app's wo.toml as the commands that read its database beside a running `wo run` need it
// (`wo audit`, `wo jobs`): its settings (where the data is), or its errors printed with their
// source lines and undefined, so the command stops before opening anything.

import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { readConfig } from "../../compiler/check/config.js";
import { DiagnosticBag } from "../../compiler/diagnostics/diagnostic.js";
import { formatWithSources } from "../../compiler/diagnostics/format.js";

export type AppConfig = ReturnType<typeof readConfig>["config"];

export function readAppConfig(dir: string): AppConfig | undefined {
  const bag = new DiagnosticBag();
  const file = join(dir, "wo.toml");
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    text = undefined;
  }
  const { config } = readConfig(text, file, basename(dir), bag);
  const errors = bag.sorted().filter((d) => d.severity === "error");
  if (errors.length === 0) return config;
  const sources = new Map(text === undefined ? [] : [[file, text]]);
  for (const d of errors) process.stderr.write(`${formatWithSources(d, sources)}\n`);
  return undefined;
}
