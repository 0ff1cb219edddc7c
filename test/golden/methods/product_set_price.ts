async product_set_price(input: unknown, call: CallContext) {
  // product.wo:13: Product.set_price(amount: Money) -> Price in txn
  type PriceRow = { id: number; product: number; amount: number; currency: string; since: string };
  type ProductRow = { id: number; sku: string; title: string; description: string | null; currency: string; status: "Active" | "Discontinued" };
  const { latest } = rt.helpers;
  const args = input as { id: number; amount: number };
  const v_amount = args.amount;
  return rt.store.write(rt.budgeted("method", "Method Product.set_price", call, async (tx, budget) => {
    const self = ((await tx.get("products", args.id)) as ProductRow | undefined) ?? rt.notFound("Product", args.id);
    // product.wo:14
    if (!(v_amount > 0)) rt.abort("a price must be positive");
    // product.wo:15
    if (!(self.status === "Active")) rt.abort("a discontinued product cannot be repriced");
    // product.wo:16
    {
      const row = { product: self.id, amount: v_amount, currency: self.currency, since: rt.now() };
      await rt.checkRefs(tx, "prices", row);
      await tx.insert("prices", row);
    }
    // product.wo:17
    return latest((await tx.list("prices", { where: [{ column: "product", op: "==", value: self.id }] })) as PriceRow[], "product.wo:17");
  }), call);
}
