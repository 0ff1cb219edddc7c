async order_cancel(input: unknown, call: CallContext) {
  // order.wo:16: Order.cancel() -> Order in txn
  type OrderRow = { id: number; customer: number; status: "Open" | "Paid" | "Cancelled"; total: number; items: { sku: string; qty: number }[] };
  const { concat } = rt.helpers;
  const args = input as { id: number };
  return rt.store.write(rt.budgeted("method", "Method Order.cancel", call, async (tx, budget) => {
    let self = ((await tx.get("order", args.id)) as OrderRow | undefined) ?? rt.notFound("Order", args.id);
    // order.wo:17
    if (!(self.status === "Open")) rt.abort(concat("order is ", self.status, "order.wo:17"));
    // order.wo:18
    self = ((await tx.update("order", self.id, { status: "Cancelled" })) as OrderRow | undefined) ?? rt.notFound("Order", self.id);
    // order.wo:19
    return self;
  }), { ...call, byKey: { lockFirst: [["order", args.id]] } });
}
