async order_cancel(input: unknown, call: CallContext) {
  // order.wo:16: Order.cancel() -> Order in txn
  type OrderRow = { id: number; customer: number; status: "Open" | "Paid" | "Cancelled"; total: number; items: { sku: string; qty: number }[] };
  const { text } = rt.helpers;
  const args = input as { id: number };
  return rt.store.write(async (tx) => {
    let self = ((await tx.get("order", args.id)) as OrderRow | undefined) ?? rt.notFound("Order", args.id);
    // order.wo:17
    if (!(self.status === "Open")) rt.abort(text("order is ") + text(self.status));
    // order.wo:18
    self = ((await tx.update("order", self.id, { status: "Cancelled" })) as OrderRow | undefined) ?? rt.notFound("Order", self.id);
    // order.wo:19
    return self;
  }, call);
}
