// The PostgreSQL store against a real server this file starts (test/support/postgres.ts), one
// fresh database per test: what postgres.conformance.test.ts cannot see through the Store
// interface alone (column types, several stores on one database, migrations racing, the
// messages for a wrong password or a server that is down, losing the server and recovering).
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  MigrationRefusedError,
  StoreOpenError,
  StoreUnavailableError,
  type AuditRecord,
  type Row,
  type StoreTx,
} from "../../model/store.js";
import { openPostgresStore, type PostgresStore } from "../../runtime/store/postgres/store.js";
import { startPostgres, type PostgresServer } from "../support/postgres.js";
import { blog, opt, scalar, authorRow as author, postRow as post } from "./fixture.js";

let server: PostgresServer;
let url: string;
let store: PostgresStore;

/** The audit record the operation runtime appends for a REST create of a Post by `principal`. */
function createAudit(principal: string): AuditRecord {
  return {
    at: "2026-01-01T00:00:00.000Z",
    principal,
    user: null,
    role: null,
    via: "owner",
    surface: "rest",
    operation: "post_create",
    type: "Post",
    rowId: null,
    outcome: "ok",
  };
}

describe("PostgreSQL store", () => {
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    url = await server.createDatabase();
    ({ store } = await openPostgresStore({ url, catalog: blog() }));
  });
  afterEach(async () => {
    await store.close();
  });

  const countRows = (table: string) => store.read((tx) => tx.count(table));

  describe("rows", () => {
    it("stores typed columns: BIGINT ids and refs, BOOLEAN, JSON structs, byte-ordered text", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write((tx) => tx.insert("post", post(1, { published: true })));
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const cols = (
        await c.query(
          `SELECT column_name AS name, data_type AS type, collation_name AS coll FROM information_schema.columns WHERE table_name = 'post' ORDER BY ordinal_position`,
        )
      ).rows;
      await c.end();
      expect(cols).toContainEqual({ name: "id", type: "bigint", coll: null });
      expect(cols).toContainEqual({ name: "author", type: "bigint", coll: null });
      expect(cols).toContainEqual({ name: "published", type: "boolean", coll: null });
      expect(cols).toContainEqual({ name: "meta", type: "json", coll: null });
      expect(cols).toContainEqual({ name: "score", type: "double precision", coll: null });
      expect(cols).toContainEqual({ name: "title", type: "text", coll: "C" });
    });
  });

  describe("unique", () => {
    it("a caught violation inside the callback does not poison the transaction (insert and update)", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write(async (tx) => {
        await tx.insert("author", author(1)).catch(() => undefined);
        const a2 = await tx.insert("author", author(2));
        await tx.update("author", a2.id as number, { email: "a1@x.org" }).catch(() => undefined);
        await tx.insert("author", author(3));
      });
      expect((await store.read((tx) => tx.list("author"))).map((a) => a.email)).toEqual([
        "a1@x.org",
        "a2@x.org",
        "a3@x.org",
      ]);
    });
  });

  describe("transactions", () => {
    it("read-modify-write from 40 concurrent writes over two stores on one database loses no update", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write((tx) => tx.insert("post", post(1)));
      const { store: other } = await openPostgresStore({ url, catalog: blog() });
      try {
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 ? store : other).write(async (tx) => {
              const p = await tx.get("post", 1);
              await tx.update("post", 1, { order: (p!.order as number) + 1 });
            }),
          ),
        );
      } finally {
        await other.close();
      }
      expect(await store.read((tx) => tx.get("post", 1))).toMatchObject({ order: 40 });
    });

    it("creates sent together commit as one group; one that fails in it fails alone, the others commit once", async () => {
      const heard: number[] = [];
      store.onCommit((changes) => heard.push(...changes.map((c) => c.id)));
      const grouped = { concurrent: true, groupable: true };
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.write((tx) => tx.insert("author", author(i + 1)), grouped)),
      );
      expect(store.groupStats.writes).toBe(20);
      expect(store.groupStats.groups).toBeLessThan(20);
      expect(new Set(made.map((r) => r.id)).size).toBe(20);
      // Two refused in the next group: a taken unique value, and a body that throws after its insert.
      const next = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.write(async (tx) => {
            if (i === 3) return tx.insert("author", author(1));
            const row = await tx.insert("author", author(100 + i));
            if (i === 6) throw new Error("refused after its insert");
            return row;
          }, grouped),
        ),
      );
      expect(next.map((r) => r.status)).toEqual(
        Array.from({ length: 10 }, (_, i) => (i === 3 || i === 6 ? "rejected" : "fulfilled")),
      );
      expect((next[3] as PromiseRejectedResult).reason).toMatchObject({ constraint: "unique" });
      const emails = (await store.read((tx) => tx.list("author"))).map((a) => a.email);
      expect(emails).toHaveLength(28);
      expect(emails).not.toContain("a106@x.org");
      // Each committed row was announced once, the rolled-back group's attempt never.
      expect(heard).toHaveLength(28);
      expect(new Set(heard).size).toBe(28);
    });

    it("a group's creates of a table without uniques go as multi-row inserts; a savepoint in one runs it alone", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      const grouped = { concurrent: true, groupable: true };
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store.write(async (tx) => {
            const row = await tx.insert("post", post(1, { title: `T${i}` }));
            // What the create reads back in its transaction is the row it inserted.
            expect(await tx.get("post", row.id as number)).toEqual(row);
            return row;
          }, grouped),
        ),
      );
      // Each create got its own row back, with the values it sent.
      expect(made.map((r) => r.title)).toEqual(Array.from({ length: 30 }, (_, i) => `T${i}`));
      expect(new Set(made.map((r) => r.id)).size).toBe(30);
      expect(store.rowInserts.rows).toBeGreaterThan(0);
      expect(store.rowInserts.statements).toBeLessThan(store.rowInserts.rows);
      // One that throws after its batched insert, and one that needs a savepoint (insertWithId).
      const next = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          store.write(async (tx) => {
            if (i === 2) return tx.insertWithId("post", 500, post(1, { title: "T500" }));
            const row = await tx.insert("post", post(1, { title: `T${100 + i}` }));
            if (i === 4) throw new Error("refused after its insert");
            return row;
          }, grouped),
        ),
      );
      expect(next.map((r) => r.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
      const titles = (await store.read((tx) => tx.list("post"))).map((p) => p.title);
      expect(titles).toHaveLength(35);
      expect(titles).toContain("T500");
      expect(titles).not.toContain("T104");
    });

    it("sole inserts go as one statement per table with their audit entries; one that asks for more runs again in a transaction", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      const audit = (i: number) => createAudit(`p${i}`);
      // As the operation runtime writes a create: the insert, then its audit record with the row's id.
      const sole = (i: number, body: (tx: StoreTx) => Promise<Row>) =>
        store.write(
          async (tx) => {
            const row = await body(tx);
            await tx.appendAudit({ ...audit(i), rowId: row.id as number });
            return row;
          },
          { concurrent: true, groupable: true, soleInsert: "post", audit: audit(i) },
        );
      const before = { ...store.rowInserts };
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, i) => sole(i, (tx) => tx.insert("post", post(1, { title: `T${i}` })))),
      );
      expect(made.map((r) => r.title)).toEqual(Array.from({ length: 30 }, (_, i) => `T${i}`));
      expect(store.rowInserts.statements - before.statements).toBeLessThan(30);
      // Each entry names its own row and its own caller, once.
      const { entries } = await store.readAudit({ limit: 100 });
      const byRow = new Map(entries.map((e) => [e.rowId, e.principal]));
      expect(entries).toHaveLength(30);
      made.forEach((row, i) => expect(byRow.get(row.id as number)).toBe(`p${i}`));
      // Refused before its insert (a read), a row the database refuses (1.5 in a BIGINT): both wrote
      // nothing in the shared statement; the first runs again in a transaction, the second fails alone.
      const next = await Promise.allSettled([
        sole(100, (tx) => tx.insert("post", post(1, { title: "T100" }))),
        sole(101, async (tx) => {
          await tx.get("author", 1);
          return tx.insert("post", post(1, { title: "T101" }));
        }),
        sole(102, (tx) => tx.insert("post", post(1, { title: "T102", order: 1.5 }))),
        sole(103, (tx) => tx.insert("post", post(1, { title: "T103" }))),
      ]);
      expect(next.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      const titles = (await store.read((tx) => tx.list("post"))).map((p) => p.title);
      expect(titles).toHaveLength(33);
      expect(titles.filter((t) => t === "T101")).toHaveLength(1);
      expect((await store.readAudit({ limit: 100 })).entries).toHaveLength(33);
    });

    it("a group's sole inserts go out once each has asked for its row or settled; one still busy goes in a statement of its own", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      const audit = createAudit("owner");
      const sole = (title: string, first?: Promise<unknown>) =>
        store.write(
          async (tx) => {
            await first;
            const row = await tx.insert("post", post(1, { title }));
            await tx.appendAudit({ ...audit, rowId: row.id as number });
            return row;
          },
          { concurrent: true, groupable: true, soleInsert: "post", audit },
        );
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const before = { ...store.rowInserts };
      const late = sole("late", held);
      // One that settles without a row (it throws first) counts as arrived, too.
      const refused = store.write(
        async () => {
          throw new Error("refused before its insert");
        },
        { concurrent: true, groupable: true, soleInsert: "post", audit },
      );
      const others = Promise.all(["a", "b", "c"].map((t) => sole(t)));
      // Written while the late one still waits: their statement did not wait for it (the
      // creates answer with their group, once the late one has settled too).
      for (let i = 0; i < 100 && store.rowInserts.rows - before.rows < 3; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(store.rowInserts.rows - before.rows).toBe(3);
      release();
      expect((await others).map((r) => r.title)).toEqual(["a", "b", "c"]);
      await expect(refused).rejects.toThrow("refused before its insert");
      expect((await late).title).toBe("late");
      expect(store.rowInserts.statements - before.statements).toBe(2);
      expect(await countRows("post")).toBe(4);
      expect((await store.readAudit({ limit: 10 })).entries).toHaveLength(4);
    });

    it("changes are notified only while another instance listens, which then hears every sole insert committed after it opened", async () => {
      // Post exposed over MCP: relayed to other instances (change-relay.ts relayedTables).
      const relayedBlog = () => {
        const c = blog();
        return { ...c, types: c.types.map((t) => (t.table === "post" ? { ...t, mcp: ["create"] } : t)) };
      };
      await store.close();
      ({ store } = await openPostgresStore({ url, catalog: relayedBlog() }));
      await store.write((tx) => tx.insert("author", author(1)));
      // A listener that is no instance (not registered) hears nothing: alone, nothing is sent.
      const bystander = new pg.Client({ connectionString: url });
      await bystander.connect();
      const overheard: string[] = [];
      bystander.on("notification", (n) => overheard.push(n.payload ?? ""));
      await bystander.query("LISTEN wo_changes");
      const audit = createAudit("owner");
      const create = (title: string) =>
        store.write(
          async (tx) => {
            const row = await tx.insert("post", post(1, { title }));
            await tx.appendAudit({ ...audit, rowId: row.id as number });
            return row;
          },
          { concurrent: true, groupable: true, soleInsert: "post", audit },
        );
      // Alone: each in a statement of its own group, outside any transaction.
      await Promise.all(Array.from({ length: 10 }, (_, i) => create(`alone ${i}`)));
      expect(store.groupStats.soleInserts).toBe(10);
      // A second instance opens: every create after that reaches it, the first ones included
      // (this one has not looked again yet, so it tries the statement that notifies nobody).
      const { store: other } = await openPostgresStore({ url, catalog: relayedBlog() });
      try {
        const heard: string[] = [];
        other.onCommit((changes) => heard.push(...changes.map((c) => String(c.row?.title))));
        const titles = Array.from({ length: 10 }, (_, i) => `shared ${i}`);
        await Promise.all(titles.map(create));
        for (let i = 0; i < 100 && heard.length < titles.length; i++) await new Promise((r) => setTimeout(r, 20));
        expect(heard.sort()).toEqual([...titles].sort());
        // The first group found the other instance in its statement, wrote nothing, and ran again notifying.
        expect(store.groupStats.soleInserts).toBe(10);
        expect(overheard.length).toBeGreaterThan(0);
      } finally {
        await other.close();
        await bystander.end();
      }
      expect(overheard.join("")).not.toContain("alone");
      expect(await countRows("post")).toBe(20);
    });

    it("a read of one statement runs outside a transaction, and is refused a second", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      expect(await store.read((tx) => tx.get("author", 1), { oneStatement: true })).toMatchObject({ name: "A1" });
      await expect(
        store.read(
          async (tx) => {
            await tx.get("author", 1);
            return tx.list("author");
          },
          { oneStatement: true },
        ),
      ).rejects.toThrow(/second statement/);
      // The connection went back to the pool clean: the next read of several statements works.
      expect(await store.read(async (tx) => [await tx.get("author", 1), await tx.count("author")])).toMatchObject([
        { name: "A1" },
        1,
      ]);
    });

    /** A promise and the function that resolves it: a transaction held open at a known point. */
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      return { open, opened };
    };
    const settledWithin = (p: Promise<unknown>, ms: number) =>
      Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

    it("concurrent (CRUD) writes run beside each other: one held open does not hold up the next", async () => {
      await store.write((tx) => tx.insert("author", author(1)), { concurrent: true });
      const held = gate();
      const first = store.write(
        async (tx) => {
          await tx.insert("author", author(2));
          await held.opened;
        },
        { concurrent: true },
      );
      // On another row: committed while the first is still open.
      const second = store.write((tx) => tx.update("author", 1, { name: "beside" }), { concurrent: true });
      expect(await settledWithin(second, 5_000)).toBe(true);
      held.open();
      await first;
      expect(await countRows("author")).toBe(2);
    });

    it("a ref check holds its row against a concurrent delete: no dangling ref either way", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      const held = gate();
      // A create of a post naming author 1, open after its ref check.
      const create = store.write(
        async (tx) => {
          expect(await tx.get("author", 1, "key-share")).toBeDefined();
          await tx.insert("post", post(1));
          await held.opened;
        },
        { concurrent: true },
      );
      await new Promise((r) => setTimeout(r, 100));
      // The delete locks the author first: it waits for the create, then sees its post.
      const remove = store.write(
        async (tx) => {
          await tx.get("author", 1, "update");
          return (await tx.referrers("author", 1)).find((r) => r.table === "post")?.count ?? 0;
        },
        { concurrent: true },
      );
      expect(await settledWithin(remove, 300)).toBe(false);
      held.open();
      await create;
      expect(await remove).toBe(1);
    });

    it("a serial write (a method) holds what it read: a concurrent update of that row waits for its commit", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write((tx) => tx.insert("post", post(1)));
      const held = gate();
      const method = store.write(async (tx) => {
        const p = await tx.get("post", 1);
        await held.opened;
        await tx.update("post", 1, { order: (p!.order as number) + 10 });
      });
      await new Promise((r) => setTimeout(r, 100));
      const patch = store.write(
        async (tx) => {
          const p = await tx.get("post", 1, "update");
          await tx.update("post", 1, { order: (p!.order as number) + 1 });
        },
        { concurrent: true },
      );
      expect(await settledWithin(patch, 300)).toBe(false);
      held.open();
      await Promise.all([method, patch]);
      // Neither update was lost: 0 + 10 + 1.
      expect(await store.read((tx) => tx.get("post", 1))).toMatchObject({ order: 11 });
    });

    /** A method's transfer of `amount` between two posts' `order`, reading both by id (WriteOptions.byKey). */
    const transfer = (on: PostgresStore, from: number, to: number, amount: number) =>
      on.write(
        async (tx) => {
          const a = await tx.get("post", from);
          const b = (await tx.list("post", { where: [{ column: "id", op: "==", value: to }] }))[0];
          await tx.update("post", from, { order: (a!.order as number) - amount });
          await tx.update("post", to, { order: (b!.order as number) + amount });
        },
        {
          byKey: {
            lockFirst: [
              ["post", from],
              ["post", to],
            ],
          },
        },
      );

    it("keyed writes (methods reading by id) run beside each other: one held open does not hold up one on other rows", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      for (const _ of [1, 2, 3]) await store.write((tx) => tx.insert("post", post(1)));
      const held = gate();
      const first = store.write(
        async (tx) => {
          await tx.get("post", 1);
          await held.opened;
        },
        { byKey: { lockFirst: [["post", 1]] } },
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(await settledWithin(transfer(store, 2, 3, 5), 5_000)).toBe(true);
      // The same row waits for the first one's commit.
      const same = transfer(store, 1, 2, 5);
      expect(await settledWithin(same, 300)).toBe(false);
      held.open();
      await Promise.all([first, same]);
      const orders = (await store.read((tx) => tx.list("post"))).map((p) => p.order);
      expect(orders).toEqual([-5, 0, 5]);
    });

    it("opposite keyed transfers from two stores lock their rows in one order: no update lost, no deadlock to retry", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      for (const _ of [1, 2]) await store.write((tx) => tx.insert("post", post(1)));
      const { store: other } = await openPostgresStore({ url, catalog: blog() });
      try {
        await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            i % 2 ? transfer(store, 1, 2, 1 + (i % 7)) : transfer(other, 2, 1, 1 + (i % 5)),
          ),
        );
        expect(store.retries + other.retries).toBe(0);
      } finally {
        await other.close();
      }
      const orders = (await store.read((tx) => tx.list("post"))).map((p) => p.order as number);
      const out = Array.from({ length: 60 }, (_, i) => (i % 2 ? 1 + (i % 7) : -(1 + (i % 5)))).reduce((a, b) => a + b);
      expect(orders).toEqual([-out, out]);
    });

    it("a keyed write that reads by a condition runs again from the start, alone, and its result counts every row", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write((tx) => tx.insert("post", post(1)));
      const held = gate();
      const keyed = store.write(
        async (tx) => {
          await tx.get("post", 1);
          await held.opened;
          await tx.insert("post", post(1));
        },
        { byKey: { lockFirst: [["post", 1]] } },
      );
      await new Promise((r) => setTimeout(r, 100));
      let runs = 0;
      const counting = store.write(
        async (tx) => {
          runs++;
          // Caught, as a body might: the store still knows the attempt read by a condition.
          const n = await tx.count("post", { where: [{ column: "author", op: "==", value: 1 }] }).catch(() => -1);
          await tx.insert("post", post(1, { order: n }));
          return n;
        },
        { byKey: { lockFirst: [["post", 1]] } },
      );
      // Alone: it waits for the keyed write still open, then sees its row.
      expect(await settledWithin(counting, 300)).toBe(false);
      held.open();
      await keyed;
      expect(await counting).toBe(2);
      expect(runs).toBe(2);
      expect(await countRows("post")).toBe(3);
    });

    it("the audit entry rides with the COMMIT: text with quotes and backslashes is stored as given; a failed call leaves none", async () => {
      const odd = `o'brien \\' \\n "x" $1 ; DROP TABLE author; --`;
      const entry = {
        at: new Date().toISOString(),
        principal: odd,
        user: "42",
        role: null,
        via: "token",
        surface: "rest",
        operation: "author_create",
        type: "Author",
        rowId: 7,
        outcome: "ok",
      };
      await store.write(async (tx) => {
        await tx.insert("author", author(1));
        await tx.appendAudit(entry);
      });
      await expect(
        store.write(async (tx) => {
          await tx.appendAudit({ ...entry, rowId: 8 });
          throw new Error("the call failed");
        }),
      ).rejects.toThrow("the call failed");
      const { entries } = await store.readAudit({ limit: 10 });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ principal: odd, user: "42", role: null, rowId: 7 });
      expect(await countRows("author")).toBe(1);
    });

    it("a ref check of a row the transaction holds answers from it: inserted, updated, deleted, undone by a savepoint", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await store.write(async (tx) => {
        const made = await tx.insert("author", author(2));
        expect(await tx.get("author", made.id as number, "key-share")).toMatchObject({ email: "a2@x.org" });
        await tx.update("author", 1, { name: "renamed" });
        expect(await tx.get("author", 1, "key-share")).toMatchObject({ name: "renamed" });
        await tx.delete("author", 1);
        expect(await tx.get("author", 1, "key-share")).toBeUndefined();
        const undone = await tx
          .savepoint(async () => {
            const row = await tx.insert("author", author(3));
            throw Object.assign(new Error("undo"), { id: row.id });
          })
          .catch((e: { id: number }) => e.id);
        expect(await tx.get("author", undone, "key-share")).toBeUndefined();
        expect(await tx.get("author", made.id as number, "key-share")).toBeDefined();
      });
      expect((await store.read((tx) => tx.list("author"))).map((a) => a.email)).toEqual(["a2@x.org"]);
    });

    it("two concurrent creates of one unique value: one row, the other a unique violation", async () => {
      const results = await Promise.allSettled(
        [1, 2].map(() => store.write((tx) => tx.insert("author", author(7)), { concurrent: true })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { constraint: "unique" } });
      expect(await countRows("author")).toBe(1);
    });
  });
  describe("opening and migrating", () => {
    it("migrate() while serving (wo run --watch): writes after it see the new shape; a refused change changes nothing", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      const withAge = blog();
      withAge.types[0]!.fields.push(opt("age", scalar("Int")));
      expect((await store.migrate(withAge, { allowDestructive: false })).applied).toEqual([
        "new optional field 'Author.age'",
      ]);
      expect(await store.write((tx) => tx.update("author", 1, { age: 40 }))).toEqual({
        id: 1,
        ...author(1),
        age: 40,
      });
      expect(
        await store.read((tx) => tx.list("author", { where: [{ column: "age", op: ">", value: 30 }] })),
      ).toHaveLength(1);
      await expect(store.migrate(blog(), { allowDestructive: false })).rejects.toBeInstanceOf(MigrationRefusedError);
      expect(await store.read((tx) => tx.get("author", 1))).toMatchObject({ age: 40 });
    });
    it("instances opening one new database at once: one migrates, the others find it done", async () => {
      const fresh = await server.createDatabase();
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => openPostgresStore({ url: fresh, catalog: blog() })),
      );
      const applied = opened.map((o) => o.migration.applied.length);
      expect(applied.filter((n) => n > 0)).toHaveLength(1);
      await opened[0]!.store.write((tx) => tx.insert("author", author(1)));
      expect(await opened[3]!.store.read((tx) => tx.get("author", 1))).toMatchObject(author(1));
      for (const o of opened) await o.store.close();
    });

    it("wrong password, unknown database and an unreachable server are clear StoreOpenErrors", async () => {
      const wrong = await openPostgresStore({
        url: server.url("postgres", { password: "nope" }),
        catalog: blog(),
      }).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(StoreOpenError);
      expect((wrong as Error).message).toMatch(/refused the user name or password/);
      expect((wrong as Error).message).not.toContain("nope");
      const missing = await openPostgresStore({ url: server.url("no_such_db"), catalog: blog() }).catch(
        (e: unknown) => e,
      );
      expect((missing as Error).message).toMatch(/no_such_db.*does not exist/);
      const down = await openPostgresStore({ url: "postgres://wo:x@127.0.0.1:1/db", catalog: blog() }).catch(
        (e: unknown) => e,
      );
      expect(down).toBeInstanceOf(StoreOpenError);
      expect((down as Error).message).toMatch(
        /Cannot reach the PostgreSQL server at postgres:\/\/wo:\*\*\*@127\.0\.0\.1:1\/db: the server refuses connections/,
      );
      // The password may come separately (password_env).
      const u = new URL(url);
      u.password = "";
      const { store: s } = await openPostgresStore({
        url: u.toString(),
        password: "wo-test-secret",
        catalog: blog(),
      });
      await s.close();
    });
  });

  describe("losing the server", () => {
    it("calls fail with StoreUnavailableError while it is down, and work again once it is back", async () => {
      await store.write((tx) => tx.insert("author", author(1)));
      await server.shutDown();
      try {
        await expect(store.read((tx) => tx.get("author", 1))).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.write((tx) => tx.insert("author", author(2)))).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(await store.problem()).toMatch(/refuses connections/);
      } finally {
        await server.restart();
      }
      expect(await store.problem()).toBeUndefined();
      expect(await store.read((tx) => tx.get("author", 1))).toMatchObject(author(1));
      await store.write((tx) => tx.insert("author", author(2)));
      expect(await countRows("author")).toBe(2);
    }, 60_000);
  });
});
