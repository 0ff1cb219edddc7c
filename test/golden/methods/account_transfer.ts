async account_transfer(input: unknown, call: CallContext) {
  // account.wo:19: Account.transfer(to: Int, amount: Money) -> Account in txn
  type AccountRow = { id: number; owner: string; balance: number };
  const { present } = rt.helpers;
  const args = input as { id: number; to: number; amount: number };
  const v_to = args.to;
  const v_amount = args.amount;
  return rt.store.write(rt.budgeted("method", "Method Account.transfer", call, async (tx, budget) => {
    let self = ((await tx.get("accounts", args.id)) as AccountRow | undefined) ?? rt.notFound("Account", args.id);
    let v_dest!: AccountRow | null;
    // account.wo:20
    if (!(v_amount > 0)) rt.abort("the amount must be positive");
    // account.wo:21
    if (!(v_to !== self.id)) rt.abort("cannot transfer to the same account");
    // account.wo:22
    if (!(self.balance >= v_amount)) rt.abort("insufficient funds");
    // account.wo:23
    if (!(await tx.count("accounts", { where: [{ column: "id", op: "==", value: v_to }] }) === 1)) rt.abort("no such destination account");
    // account.wo:24
    v_dest = (((await tx.list("accounts", { where: [{ column: "id", op: "==", value: v_to }] })) as AccountRow[])[0] ?? null);
    // account.wo:25
    self = ((await tx.update("accounts", self.id, { balance: rt.checkedInt(self.balance - v_amount, "account.wo:25") })) as AccountRow | undefined) ?? rt.notFound("Account", self.id);
    // account.wo:26
    present(v_dest, "dest", "account.wo:26");
    v_dest = ((await tx.update("accounts", v_dest.id, { balance: rt.checkedInt(present(v_dest, "dest", "account.wo:26").balance + v_amount, "account.wo:26") })) as AccountRow | undefined) ?? rt.notFound("Account", v_dest.id);
    // account.wo:27
    {
      const row = { account: self.id, amount: -v_amount, counterpart: v_to, memo: "transfer out", at: rt.now() };
      await rt.checkRefs(tx, "entries", row, [["counterpart","/to"]]);
      await tx.insert("entries", row);
    }
    // account.wo:28
    {
      const row = { account: v_to, amount: v_amount, counterpart: self.id, memo: "transfer in", at: rt.now() };
      await rt.checkRefs(tx, "entries", row, [["account","/to"]]);
      await tx.insert("entries", row);
    }
    // account.wo:29
    return self;
  }), { ...call, byKey: { lockFirst: [["accounts", args.id], ["accounts", v_to]] } });
}
