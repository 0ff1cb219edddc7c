// `wo lsp [--stdio]`: the language server for editors, speaking LSP on stdin/stdout
// (compiler/lsp/server.ts, spec/editors.md). stdio is the only transport; `--stdio` is
// accepted because editor clients pass it, and `--clientProcessId` because VS Code may (both
// in the command table, cli/commands/table.ts, which refuses anything else).
// Runs until the client sends `exit` or closes stdin.

export async function runLspCommand(): Promise<number> {
  const { startLanguageServer } = await import("../../compiler/lsp/server.js");
  const connection = startLanguageServer(process.stdin, process.stdout);
  // The connection ends the process itself on `exit` or when stdin closes.
  return new Promise<number>((resolve) => connection.onExit(() => resolve(0)));
}
