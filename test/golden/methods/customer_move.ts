async customer_move(input: unknown, call: CallContext) {
  // customer.wo:10: Customer.move(street: Text, city: Text) -> Customer in txn
  type CustomerRow = { id: number; name: string; email: string; tier: "Basic" | "Gold"; address: { street: string; city: string; zip: string | null } | null };
  const args = input as { id: number; street: string; city: string };
  const v_street = args.street;
  const v_city = args.city;
  return rt.store.write(rt.budgeted("method", "Method Customer.move", call, async (tx, budget) => {
    let self = ((await tx.get("customer", args.id)) as CustomerRow | undefined) ?? rt.notFound("Customer", args.id);
    // customer.wo:11
    self = ((await tx.update("customer", self.id, { address: { street: v_street, city: v_city, zip: null } })) as CustomerRow | undefined) ?? rt.notFound("Customer", self.id);
    // customer.wo:12
    return self;
  }), { ...call, byKey: { lockFirst: [["customer", args.id]] } });
}
