// Starts `wo lsp --stdio` as the language server for .wo files. The command comes from the
// `wo.command` setting (default: `wo` on the PATH); see README.md in this folder.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("wo").get("command", ["wo"]);
  const run = { command, args: [...args, "lsp"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "wo",
    "wo",
    { run, debug: run },
    {
      documentSelector: [{ scheme: "file", language: "wo" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/{*.wo,wo.toml}") },
    },
  );
  context.subscriptions.push({ dispose: () => client?.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
