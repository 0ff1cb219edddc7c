// The store against a plain in-memory model: random sequences of writes (some failing on
// purpose) and reads must agree with what the model says, row for row. Plus SQL keywords as
// table and field names.
import fc from "fast-check";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../runtime/store/sqlite.js";
import { StoreConstraintError, type Row } from "../../model/store.js";
import { catalog, field, opt, scalar, tempDir, type } from "./fixture.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

// `group`, `select`, `from`, `where`, `order`: every one a SQL keyword.
const keywords = catalog(
  type(
    "Group",
    [field("select", scalar("Text"), { isUnique: true }), opt("from", scalar("Int")), field("where", scalar("Bool"))],
    {
      indexes: [{ name: "order", columns: ["from", "where"] }],
    },
  ),
);

type Op =
  | { kind: "insert"; key: string; from: number | null; flag: boolean; fail: boolean }
  | { kind: "update"; pick: number; key?: string; from?: number | null; fail: boolean }
  | { kind: "delete"; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("insert" as const),
    key: fc.constantFrom("a", "b", "c", "d", "e", "f"),
    from: fc.option(fc.integer({ min: -5, max: 5 })),
    flag: fc.boolean(),
    fail: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("update" as const),
    pick: fc.nat(20),
    key: fc.option(fc.constantFrom("a", "b", "c", "g"), { nil: undefined }),
    from: fc.option(fc.option(fc.integer({ min: -5, max: 5 })), { nil: undefined }),
    fail: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat(20) }),
);

it("random writes (some throwing, some violating @unique), run concurrently, match a serial model", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 25 }), async (ops) => {
      tmp.cleanup();
      tmp = tempDir();
      const { store } = await openSqliteStore({ file: tmp.file, catalog: keywords });
      try {
        // The model runs the ops in submission order, which is the order the queue runs them.
        const model = new Map<number, Row>();
        let nextId = 1;
        const expected: ("ok" | "unique" | "boom")[] = [];
        for (const op of ops) expected.push(applyToModel(model, op, () => nextId++));
        const outcomes = await Promise.all(
          ops.map((op) =>
            runOnStore(store, op).then(
              () => "ok" as const,
              (e: unknown) => (e instanceof StoreConstraintError ? ("unique" as const) : ("boom" as const)),
            ),
          ),
        );
        expect(outcomes).toEqual(expected);
        const rows = await store.read((tx) => tx.list("group"));
        expect(rows).toEqual([...model.values()]);
        const flagged = await store.read((tx) =>
          tx.list("group", {
            where: [
              { column: "where", op: "==", value: true },
              { column: "from", op: ">=", value: 0 },
            ],
          }),
        );
        expect(flagged).toEqual(
          [...model.values()].filter((r) => r.where === true && r.from !== null && (r.from as number) >= 0),
        );
      } finally {
        await store.close();
      }
    }),
    { numRuns: 40 },
  );
});

/** A rolled-back insert rolls back the id counter too: only committed inserts mint. */
function applyToModel(model: Map<number, Row>, op: Op, mint: () => number): "ok" | "unique" | "boom" {
  const ids = [...model.keys()];
  switch (op.kind) {
    case "insert": {
      if ([...model.values()].some((r) => r.select === op.key)) return "unique";
      if (op.fail) return "boom";
      const id = mint();
      model.set(id, { id, select: op.key, from: op.from, where: op.flag });
      return "ok";
    }
    case "update": {
      const id = ids[op.pick % Math.max(1, ids.length)];
      if (id === undefined) return op.fail ? "boom" : "ok";
      const row = model.get(id)!;
      if (op.key !== undefined && [...model.values()].some((r) => r.select === op.key && r.id !== id)) return "unique";
      if (op.fail) return "boom";
      model.set(id, {
        ...row,
        ...(op.key !== undefined ? { select: op.key } : {}),
        ...(op.from !== undefined ? { from: op.from } : {}),
      });
      return "ok";
    }
    case "delete": {
      const id = ids[op.pick % Math.max(1, ids.length)];
      if (id !== undefined) model.delete(id);
      return "ok";
    }
  }
}

async function runOnStore(store: SqliteStore, op: Op): Promise<void> {
  await store.write(async (tx) => {
    // The target row is picked inside the transaction, from the state the model also sees.
    const ids = (await tx.list("group")).map((r) => r.id as number);
    const id = ids[("pick" in op ? op.pick : 0) % Math.max(1, ids.length)];
    switch (op.kind) {
      case "insert":
        await tx.insert("group", { select: op.key, from: op.from, where: op.flag });
        if (op.fail) throw new Error("boom");
        return;
      case "update":
        if (id !== undefined) await tx.update("group", id, { select: op.key, from: op.from });
        if (op.fail) throw new Error("boom");
        return;
      case "delete":
        if (id !== undefined) await tx.delete("group", id);
        return;
    }
  });
}
