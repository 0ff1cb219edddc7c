// The tables `wo audit` and `wo jobs` print: one line per row under a heading, each column as
// wide as its widest cell (the last left ragged). Cells come from the database — names and
// user ids from tokens and JWT claims, errors an app or a worker wrote — so no control
// character reaches the terminal.

export function textTable(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => r.map(printable));
  const widths = headings.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[headings, ...cells].map(line).join("\n")}\n`;
}

function printable(cell: string): string {
  return cell.replace(/[\u0000-\u001f\u007f-\u009f]/g, "\ufffd");
}
