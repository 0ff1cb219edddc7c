async product_current_price(input: unknown, call: CallContext) {
  // product.wo:21: Product.current_price() -> Price
  type PriceRow = { id: number; product: number; amount: number; currency: string; since: string };
  type ProductRow = { id: number; sku: string; title: string; description: string | null; currency: string; status: "Active" | "Discontinued" };
  const { latest } = rt.helpers;
  const args = input as { id: number };
  return rt.store.read(rt.budgeted("method", "Method Product.current_price", call, async (tx, budget) => {
    const self = ((await tx.get("products", args.id)) as ProductRow | undefined) ?? rt.notFound("Product", args.id);
    // product.wo:22
    const v_prices = (await tx.list("prices", { where: [{ column: "product", op: "==", value: self.id }] })) as PriceRow[];
    // product.wo:23
    if (!(v_prices.length > 0)) rt.abort("this product has no price yet");
    // product.wo:24
    return latest(v_prices, "product.wo:24");
  }));
}
