async product_history(input: unknown, call: CallContext) {
  // product.wo:28: Product.history() -> [Price] in txn snapshot
  type PriceRow = { id: number; product: number; amount: number; currency: string; since: string };
  type ProductRow = { id: number; sku: string; title: string; description: string | null; currency: string; status: "Active" | "Discontinued" };
  const args = input as { id: number };
  return rt.store.read(rt.budgeted("method", "Method Product.history", call, async (tx, budget) => {
    const self = ((await tx.get("products", args.id)) as ProductRow | undefined) ?? rt.notFound("Product", args.id);
    // product.wo:29
    return (await tx.list("prices", { where: [{ column: "product", op: "==", value: self.id }] })) as PriceRow[];
  }));
}
