async account_statement(input: unknown, call: CallContext) {
  // account.wo:33: Account.statement() -> [Entry]
  type AccountRow = { id: number; owner: string; balance: number };
  type EntryRow = { id: number; account: number; amount: number; counterpart: number | null; memo: string; at: string };
  const args = input as { id: number };
  return rt.store.read(rt.budgeted("method", "Method Account.statement", call, async (tx, budget) => {
    const self = ((await tx.get("accounts", args.id)) as AccountRow | undefined) ?? rt.notFound("Account", args.id);
    // account.wo:34
    return (await tx.list("entries", { where: [{ column: "account", op: "==", value: self.id }] })) as EntryRow[];
  }));
}
