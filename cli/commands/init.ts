// `wo init [dir]`: scaffold an app that `wo check` accepts and `wo run` serves — wo.toml, one
// type served over REST and MCP, a `test` block, and a README naming the next commands.
//
// DECISION: the folder may be new, empty, or hold other files (a fresh git clone, notes) as
// long as it has no `.wo` file (by the rule `wo check` uses to find them) and no wo.toml: init
// never overwrites or mixes into an app. An existing README.md is kept; the next steps are
// printed either way. An existing .gitignore is kept and gets a `.wo/` line if it lacks one. Exit 0 when written, 1 when refused, 2 for a bug in wo.

import { appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import { configFileName } from "../../compiler/check/config.js";
import { loadSources } from "../../compiler/check/load.js";
import { DiagnosticBag } from "../../compiler/diagnostics/diagnostic.js";
import { displayPathOf } from "../../compiler/display-path.js";
import type { ParsedArgs } from "./args.js";

export async function runInitCommand(args: ParsedArgs): Promise<number> {
  const dir = args.first ?? ".";
  const root = resolve(dir);
  const refused = await whyNot(root, dir);
  if (refused) {
    process.stderr.write(`wo init: ${refused}\n`);
    return 1;
  }
  const name = appName(basename(root));
  const files = scaffold(name);
  try {
    await mkdir(root, { recursive: true });
    const written: string[] = [];
    for (const [file, text] of Object.entries(files)) {
      // `wx`: never replace a file, even one that appeared since the check above.
      const wrote = await writeFile(join(root, file), text, { flag: "wx" }).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === "EEXIST" && file === "README.md") return false;
          if (err.code === "EEXIST" && file === ".gitignore") return addToGitignore(join(root, file));
          throw err;
        },
      );
      if (wrote) written.push(file);
    }
    const shown = displayPathOf(dir, root);
    process.stdout.write(`wo init: wrote ${written.join(", ")} in ${shown}\n\n${nextSteps(shown)}`);
    return 0;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(
      `wo init: cannot write to ${dir}: ${e.code === "EACCES" || e.code === "EPERM" ? "permission denied" : e.code === "EEXIST" ? `${relative(root, e.path ?? "") || "a file"} already exists` : e.message}\n`,
    );
    return 1;
  }
}

/** Why `root` cannot take a new app, or undefined when it can. */
async function whyNot(root: string, dir: string): Promise<string | undefined> {
  try {
    if (!(await stat(root)).isDirectory()) return `${dir} is a file, not a folder`;
  } catch {
    return undefined; // a new folder
  }
  if (await exists(join(root, configFileName)))
    return `${dir} already has a ${configFileName}; it is an app already (wo check ${dir})`;
  const bag = new DiagnosticBag();
  const found = await loadSources(root, dir, bag);
  // A folder holding apps (WO4007) would become one holding an app and those below it.
  if (bag.items.some((d) => d.code === "WO4007"))
    return `${dir} holds other apps (wo check ${dir} lists them); run wo init in a new or empty folder`;
  if (found.length > 0)
    return `${dir} already has .wo files (${found[0]!.path}${found.length > 1 ? `, +${found.length - 1} more` : ""}); run wo init in a new or empty folder`;
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** A folder name as an app name: wo.toml `name` is any string, but keep it one readable word. */
function appName(folder: string): string {
  const cleaned = folder.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  return cleaned === "" ? "app" : cleaned;
}

function scaffold(name: string): Record<string, string> {
  return {
    "wo.toml": `name = "${name}"
version = "0.1.0"

[server]
listen = "127.0.0.1:8080"
`,
    "task.wo": `-- wo serves Task as REST routes under /api/tasks and as MCP tools (task_list, task_get,
-- task_create, task_update, task_delete) at /mcp. (The blank line below keeps this note out
-- of the tools' descriptions: a comment directly above a type is its doc comment.)

-- Something to do.
type Task {
  -- What needs doing.
  title: Text
  done: Bool = false
  -- When it should be done by, if ever.
  due: Timestamp?
  created_at: Timestamp = now()

  service rest "/api/tasks" expose list, get, create, update, delete
  service mcp "/mcp" expose list, get, create, update, delete
}

-- wo test runs it on a fresh store.
test "a new task is not done" {
  insert Task { title: "try wo" }
  assert count(select Task { done == false }) == 1 otherwise abort "a new task should start not done"
}
`,
    // The build and the database live in .wo/: not something to commit.
    ".gitignore": gitignoreLine,
    "README.md": `# ${name}

A wo app (wo turns the .wo files here into a database, a REST API and an MCP server).

${nextSteps(".").trimEnd()}
`,
  };
}

const gitignoreLine = ".wo/\n";

/**
 * An existing .gitignore (a fresh clone's) is kept and gets the `.wo/` line when it lacks one;
 * true when something was written.
 */
async function addToGitignore(path: string): Promise<boolean> {
  const text = await readFile(path, "utf8");
  if (text.split(/\r?\n/).some((line) => /^\/?\.wo\/?$/.test(line.trim()))) return false;
  await appendFile(path, `${text === "" || text.endsWith("\n") ? "" : "\n"}${gitignoreLine}`);
  return true;
}

function nextSteps(dir: string): string {
  const at = dir === "." ? "" : ` ${dir}`;
  return `Next:

    wo check${at}     # parse and check the .wo files
    wo test${at}      # run the test blocks, each on a fresh store
    wo run${at}       # serve REST at http://127.0.0.1:8080/api/tasks and MCP at /mcp

In a second terminal, while wo run serves:

    curl -s localhost:8080/api/tasks -H 'content-type: application/json' -d '{"title":"try wo"}'
    curl -s localhost:8080/api/tasks

Connect an MCP client (Claude Code, Cursor, MCP Inspector) to http://127.0.0.1:8080/mcp.
Edit task.wo and run again: the routes and tools follow.
`;
}
