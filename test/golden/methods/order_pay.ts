async order_pay(input: unknown, call: CallContext) {
  // order.wo:9: Order.pay() -> Order in txn
  type OrderRow = { id: number; customer: number; status: "Open" | "Paid" | "Cancelled"; total: number; items: { sku: string; qty: number }[] };
  const { present, concat } = rt.helpers;
  const args = input as { id: number };
  return rt.store.write(rt.budgeted("method", "Method Order.pay", call, async (tx, budget) => {
    let self = ((await tx.get("order", args.id)) as OrderRow | undefined) ?? rt.notFound("Order", args.id);
    // order.wo:10
    if (!(self.status === "Open")) rt.abort(concat("order is ", self.status, "order.wo:10"));
    // order.wo:11
    self = ((await tx.update("order", self.id, { status: "Paid", total: rt.checkedInt(self.total + present(await nested(budget, "order.wo:11", async () => f_shipping(tx, budget, self.customer)), "shipping()", "order.wo:11"), "order.wo:11") })) as OrderRow | undefined) ?? rt.notFound("Order", self.id);
    // order.wo:12
    return self;
  }), call);
}
