async shop_summary(input: unknown, call: CallContext) {
  // every.wo:27: Shop.summary() -> Text
  type ShopRow = { id: number; name: string; status: "Open" | "Closed"; rating: number | null };
  const args = rt.validate<{ id: number }>("shop_summary", input);
  return rt.store.read(async (tx) => {
    const self = ((await tx.get("shop", args.id)) as ShopRow | undefined) ?? rt.notFound("Shop", args.id);
    // every.wo:28
    if (self.status === "Closed") {
      // every.wo:29
      return "closed";
    }
    // every.wo:31
    return self.name;
  });
}
