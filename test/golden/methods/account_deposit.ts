async account_deposit(input: unknown, call: CallContext) {
  // account.wo:11: Account.deposit(amount: Money) -> Account in txn
  type AccountRow = { id: number; owner: string; balance: number };
  const args = input as { id: number; amount: number };
  const v_amount = args.amount;
  return rt.store.write(rt.budgeted("method", "Method Account.deposit", call, async (tx, budget) => {
    let self = ((await tx.get("accounts", args.id)) as AccountRow | undefined) ?? rt.notFound("Account", args.id);
    // account.wo:12
    if (!(v_amount > 0)) rt.abort("the amount must be positive");
    // account.wo:13
    self = ((await tx.update("accounts", self.id, { balance: rt.checkedInt(self.balance + v_amount, "account.wo:13") })) as AccountRow | undefined) ?? rt.notFound("Account", self.id);
    // account.wo:14
    {
      const row = { account: self.id, amount: v_amount, counterpart: null, memo: "deposit", at: rt.now() };
      await rt.checkRefs(tx, "entries", row);
      await tx.insert("entries", row);
    }
    // account.wo:15
    return self;
  }), { ...call, byKey: { lockFirst: [["accounts", args.id]] } });
}
