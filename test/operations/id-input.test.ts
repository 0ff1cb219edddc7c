// IdInput (runtime/operations/id-input.ts): only a positive safe integer makes one; rt.validate
// passes it unchecked to a get or delete only (their schema is byId), and checks it as any
// other input everywhere else; a plain `{ id }` is still checked by the schema.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OperationEntry } from "../../model/build-contract.js";
import type { Store } from "../../model/store.js";
import { loadBuild } from "../../runtime/load-build.js";
import { IdInput } from "../../runtime/operations/id-input.js";
import { createOperationRuntime, type BoundRuntime } from "../../runtime/operations/runtime.js";
import { openSqliteStore } from "../../runtime/store/sqlite.js";
import { blogCatalog } from "../fixtures/catalog.js";
import { tempDir, writeBuild } from "../rest/support/harness.js";

let store: Store;
let rt: BoundRuntime;
let operations: OperationEntry[];

beforeAll(async () => {
  const dir = tempDir("wo-id-input-");
  writeBuild(blogCatalog(), join(dir, "build"));
  const build = await loadBuild(join(dir, "build"));
  ({ store } = await openSqliteStore({ file: join(dir, "data", "app.sqlite"), catalog: build.catalog }));
  operations = build.catalog.operations;
  rt = createOperationRuntime({ catalog: build.catalog, store, validators: build.validators, log: () => {} });
}, 60_000);

afterAll(async () => {
  await store?.close();
});

describe("IdInput", () => {
  it("is made only from a positive safe integer, and is `{ id }` to whoever reads it", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53, Number.POSITIVE_INFINITY])
      expect(IdInput.of(bad)).toBeUndefined();
    const input = IdInput.of(2 ** 53 - 1)!;
    expect(input.id).toBe(2 ** 53 - 1);
    expect(Object.keys(input)).toEqual(["id"]);
    expect(JSON.stringify(IdInput.of(7))).toBe('{"id":7}');
  });

  it("passes a get's and a delete's schema as it is; a plain input of theirs is still checked", () => {
    const get = operations.find((e) => e.kind === "get")!.name;
    const del = operations.find((e) => e.kind === "delete")!.name;
    const input = IdInput.of(3)!;
    expect(rt.validate(get, input)).toBe(input);
    expect(rt.validate(del, input)).toBe(input);
    expect(rt.validate(get, { id: 3 })).toEqual({ id: 3 });
    expect(() => rt.validate(get, { id: "3" })).toThrow(/does not match/);
    expect(() => rt.validate(get, { id: 3, extra: 1 })).toThrow(/does not match/);
  });

  it("is checked like any input by an operation whose schema is not byId", () => {
    const update = operations.find((e) => e.kind === "update")!.name;
    const create = operations.find((e) => e.kind === "create")!.name;
    expect(() => rt.validate(create, IdInput.of(3))).toThrow(/does not match/);
    // An update of id 3 that changes nothing is a valid input: checked, and passed.
    expect(rt.validate(update, IdInput.of(3))).toEqual({ id: 3 });
  });
});
