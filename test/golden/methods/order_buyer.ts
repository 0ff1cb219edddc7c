async order_buyer(input: unknown, call: CallContext) {
  // order.wo:23: Order.buyer() -> Text
  type CustomerRow = { id: number; name: string; email: string; tier: "Basic" | "Gold"; address: { street: string; city: string; zip: string | null } | null };
  type OrderRow = { id: number; customer: number; status: "Open" | "Paid" | "Cancelled"; total: number; items: { sku: string; qty: number }[] };
  const { deref } = rt.helpers;
  const args = input as { id: number };
  return rt.store.read(rt.budgeted("method", "Method Order.buyer", call, async (tx, budget) => {
    const self = ((await tx.get("order", args.id)) as OrderRow | undefined) ?? rt.notFound("Order", args.id);
    // order.wo:24
    return (await deref<CustomerRow>(tx, "customer", self.customer, "Customer", "self.customer", "order.wo:24"))!.name;
  }));
}
