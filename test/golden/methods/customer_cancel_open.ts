async customer_cancel_open(input: unknown, call: CallContext) {
  // customer.wo:16: Customer.cancel_open() -> Int in txn
  type CustomerRow = { id: number; name: string; email: string; tier: "Basic" | "Gold"; address: { street: string; city: string; zip: string | null } | null };
  type OrderRow = { id: number; customer: number; status: "Open" | "Paid" | "Cancelled"; total: number; items: { sku: string; qty: number }[] };
  const { present } = rt.helpers;
  const args = input as { id: number };
  return rt.store.write(rt.budgeted("method", "Method Customer.cancel_open", call, async (tx, budget) => {
    const self = ((await tx.get("customer", args.id)) as CustomerRow | undefined) ?? rt.notFound("Customer", args.id);
    let v_cancelled!: number;
    let v_o!: OrderRow;
    // customer.wo:17
    v_cancelled = 0;
    // customer.wo:18
    for (v_o of (await tx.list("order", { where: [{ column: "customer", op: "==", value: self.id }] })) as OrderRow[]) {
      if (--budget.left <= 0) await budget.check();
      // customer.wo:19
      if (v_o.status === "Open") {
        // customer.wo:20
        present(await nested(budget, "customer.wo:20", async () => m_Order$cancel(tx, budget, v_o.id)), "Order.cancel()", "customer.wo:20");
        // customer.wo:21
        v_cancelled = rt.checkedInt(v_cancelled + 1, "customer.wo:21");
      }
    }
    // customer.wo:24
    return v_cancelled;
  }), call);
}
