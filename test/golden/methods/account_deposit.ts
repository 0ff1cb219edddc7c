async account_deposit(input: unknown, call: CallContext) {
  // account.wo:11: Account.deposit(amount: Money) -> Account in txn
  type AccountRow = { id: number; owner: string; balance: number };
  const args = rt.validate<{ id: number; amount: number }>("account_deposit", input);
  const amount = args.amount;
  return rt.store.write(async (tx) => {
    let self = ((await tx.get("accounts", args.id)) as AccountRow | undefined) ?? rt.notFound("Account", args.id);
    // account.wo:12
    if (!(amount > 0)) rt.abort("the amount must be positive");
    // account.wo:13
    self = ((await tx.update("accounts", self.id, { balance: self.balance + amount })) as AccountRow | undefined) ?? rt.notFound("Account", self.id);
    // account.wo:14
    {
      const row = { account: self.id, amount: amount, counterpart: null, memo: "deposit", at: rt.now() };
      await rt.checkRefs(tx, "entries", row);
      await tx.insert("entries", row);
    }
    // account.wo:15
    return self;
  }, call);
}
