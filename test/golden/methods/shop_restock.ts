async shop_restock(input: unknown, call: CallContext) {
  // every.wo:7: Shop.restock(amount: Money, label: Text) -> Int in txn
  type ItemRow = { id: number; shop: number; price: number; label: string | null; kind: "Small" | "Large" };
  type ShopRow = { id: number; name: string; status: "Open" | "Closed"; rating: number | null };
  const { intDiv, intMod, latest } = rt.helpers;
  const args = input as { id: number; amount: number; label: string };
  const v_amount = args.amount;
  const v_label = args.label;
  return rt.store.write(rt.budgeted("method", "Method Shop.restock", call, async (tx, budget) => {
    let self = ((await tx.get("shop", args.id)) as ShopRow | undefined) ?? rt.notFound("Shop", args.id);
    let v_n!: number;
    let v_last!: ItemRow;
    // every.wo:8
    v_n = await tx.count("item", { where: [{ column: "shop", op: "==", value: self.id }] });
    // every.wo:9
    if (v_n > 0 && !(v_amount === 0) || self.rating == null) {
      // every.wo:10
      v_n = rt.checkedInt(rt.checkedInt(v_n + rt.checkedInt(v_amount * 2, "every.wo:10"), "every.wo:10") - intMod(intDiv(v_amount, 3, "every.wo:10"), 5, "every.wo:10"), "every.wo:10");
    }
    else if (v_label === "none") {
      // every.wo:12
      return -1;
    }
    else {
      // every.wo:14
      if (!true) rt.abort("never");
    }
    // every.wo:16
    {
      const row = { shop: self.id, price: v_amount, label: v_label, kind: "Small" };
      await rt.checkRefs(tx, "item", row);
      await tx.insert("item", row);
    }
    // every.wo:17
    {
      const patch = { price: v_amount };
      for (const row of await tx.list("item", { where: [{ column: "shop", op: "==", value: self.id }, { column: "price", op: ">=", value: 0 }] })) {
        if (--budget.left <= 0) await budget.check();
        await tx.update("item", row.id as number, patch);
      }
    }
    // every.wo:18
    self = ((await tx.update("shop", self.id, { name: v_label, status: "Closed" })) as ShopRow | undefined) ?? rt.notFound("Shop", self.id);
    // every.wo:19
    const v_cheap = ((await tx.list("item", { where: [{ column: "price", op: "<", value: 100 }] })) as ItemRow[]).map((row) => ({ id: row.id, price: row.price }));
    // every.wo:20
    v_last = latest((await tx.list("item", { where: [{ column: "shop", op: "==", value: self.id }] })) as ItemRow[], "every.wo:20");
    // every.wo:21
    v_last = ((await tx.update("item", v_last.id, { price: rt.checkedInt(v_last.price + 1, "every.wo:21") })) as ItemRow | undefined) ?? rt.notFound("Item", v_last.id);
    // every.wo:22
    for (const row of await tx.list("item", { where: [{ column: "price", op: "<", value: 0 }] })) {
      if (--budget.left <= 0) await budget.check();
      await rt.checkNotReferenced(tx, "item", row.id as number);
      await tx.delete("item", row.id as number);
    }
    // every.wo:23
    {
      const patch = { price: 5000 };
      for (const row of await tx.list("item", { where: [{ column: "price", op: ">", value: 5000 }] })) {
        if (--budget.left <= 0) await budget.check();
        await tx.update("item", row.id as number, patch);
      }
    }
    // every.wo:24
    const v_dear = (await tx.list("item", { where: [{ column: "price", op: ">=", value: 4000 }, { column: "kind", op: "==", value: "Large" }] })) as ItemRow[];
    // every.wo:25
    {
      const patch = { kind: "Small", label: null };
      for (const row of v_dear) {
        if (--budget.left <= 0) await budget.check();
        await tx.update("item", row.id, patch);
      }
    }
    // every.wo:26
    for (const row of v_dear) {
      if (--budget.left <= 0) await budget.check();
      await rt.checkNotReferenced(tx, "item", row.id);
      await tx.delete("item", row.id);
    }
    // every.wo:27
    if (!(self.name === v_label)) rt.abort("renamed");
    // every.wo:28
    return rt.checkedInt(rt.checkedInt(v_n + v_cheap.length, "every.wo:28") + v_last.price, "every.wo:28");
  }), call);
}
