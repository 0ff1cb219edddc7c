async shop_summary(input: unknown, call: CallContext) {
  // every.wo:31: Shop.summary() -> Text
  type ShopRow = { id: number; name: string; status: "Open" | "Closed"; rating: number | null };
  const args = input as { id: number };
  return rt.store.read(rt.budgeted("method", "Method Shop.summary", call, async (tx, budget) => {
    const self = ((await tx.get("shop", args.id)) as ShopRow | undefined) ?? rt.notFound("Shop", args.id);
    // every.wo:32
    if (self.status === "Closed") {
      // every.wo:33
      return "closed";
    }
    // every.wo:35
    return self.name;
  }));
}
