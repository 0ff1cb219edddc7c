// The swap behind `wo run --watch` in process (runtime/instance.ts; spec/live.md): a call that
// took the serving binding before a swap finishes on that build, the store is migrated between
// the two, the instance's parts (the MCP endpoint with its sessions and streams, the budget)
// serve on, and a refused migration leaves the serving binding as it was. Real builds from .wo
// sources, a real SQLite file.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../../compiler/build.js";
import { createRuntimeInstance, type RuntimeInstance } from "../../runtime/instance.js";
import { loadBuild, type LoadedBuild } from "../../runtime/load-build.js";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { removeApp, writeApp } from "../support/wo-process.js";

vi.setConfig({ hookTimeout: 120_000 });

const note = (fields: string, ops: string) => `type Note {
  id: Id
${fields}
  service rest "/api/notes" expose ${ops}
}
`;

let appDir: string;
let builds: LoadedBuild[];
let store: SqliteStore;
let host: RuntimeInstance;

/** Builds the app as `text` into its own folder and loads it. */
async function built(text: string, name: string): Promise<LoadedBuild> {
  writeFileSync(join(appDir, "note.wo"), text);
  const result = await buildApp(appDir, { out: join(appDir, ".wo", name) });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return loadBuild(result.outDir);
}

beforeAll(async () => {
  appDir = writeApp("notes", { "wo.toml": 'name = "notes"\n' });
  builds = [
    await built(note("  title: Text", "list, get, create"), "b1"),
    await built(note("  title: Text\n  body: Text?", "list, get, create, update"), "b2"),
    await built(note("", "list, get, create, update"), "b3"),
  ];
  store = (await openSqliteStore({ file: join(appDir, ".wo", "data", "app.sqlite"), catalog: builds[0]!.catalog }))
    .store;
  host = await createRuntimeInstance({
    build: builds[0]!,
    store,
    allowDestructiveMigration: false,
    watching: true,
    log: () => undefined,
  });
});
afterAll(async () => {
  host?.close();
  await store?.close();
  if (appDir) removeApp(appDir);
});

describe("RuntimeInstance.swap", () => {
  it("a call that started on the old app commits on the old build; the next call gets the new one; the instance's MCP endpoint serves on", async () => {
    const old = host.binding;
    const inFlight = old.operations.note_create!({ title: "before" }, {});
    const outcome = await host.swap(builds[1]!);
    expect(await inFlight).toMatchObject({ id: 1, title: "before" });
    expect(outcome).toEqual({
      swapped: true,
      migrated: ["new optional field 'Note.body'"],
      notified: ["tools", "resources"],
      changes: {
        tools: { added: ["note_update"], removed: [], changed: ["note_create", "note_get", "note_list"] },
        routes: { added: ["PATCH /api/notes/:id"], removed: [], changed: [] },
        types: { added: [], removed: [], changed: ["Note"] },
        settings: false,
      },
    });
    expect(host.binding).not.toBe(old);
    expect(await host.binding.operations.note_update!({ id: 1, body: "after" }, {})).toEqual({
      id: 1,
      title: "before",
      body: "after",
    });
    // The old binding still answers what reached it before the swap, with its own build.
    expect(Object.keys(old.operations)).not.toContain("note_update");
  });

  it("a refused migration keeps the serving binding and the data", async () => {
    const serving = host.binding;
    const outcome = await host.swap(builds[2]!);
    expect(outcome.swapped).toBe(false);
    expect(outcome.swapped === false && outcome.reason).toContain("field 'Note.title' was removed");
    expect(host.binding).toBe(serving);
    expect(await host.binding.operations.note_get!({ id: 1 }, {})).toEqual({ id: 1, title: "before", body: "after" });
  });
});
