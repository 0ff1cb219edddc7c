// `wo lsp`: the language server over stdio (spec/editors.md).
//
// Owns: the LSP wiring — open documents, which app each belongs to, when apps are re-checked,
// publishing diagnostics, and answering hover, definition and completion. The checking itself
// is `checkApp` (analysis.ts), so the editor shows exactly what `wo check` prints.
//
// Checks run one at a time per app; edits that arrive meanwhile are folded into one more run,
// and requests wait for the run that covers the text they were asked about.

import { join } from "node:path";
import {
  createConnection,
  DiagnosticSeverity,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type Location,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { configFileName } from "../check/config.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { SourceFile } from "../source.js";
import {
  analyseApp,
  appRelative,
  appRootOf,
  displayPathToFile,
  fileToUri,
  isInside,
  rangeOf,
  uriToFile,
  type AppAnalysis,
} from "./analysis.js";
import { completionsAt } from "./completion.js";
import { hoverMarkdown } from "./hover.js";
import { symbolAt } from "./symbols.js";

interface AppState {
  latest?: AppAnalysis;
  /** The running check loop; undefined when idle. */
  running?: Promise<void>;
  /** Another run is needed after the current one (the text changed while it ran). */
  again: boolean;
  /** URIs that were last given diagnostics, to clear the ones that have none now. */
  published: Set<string>;
}

export function startLanguageServer(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Connection {
  const connection = createConnection(input, output);
  // stdout is the protocol: anything printed by accident goes to the client's log instead.
  console.log = console.info = (...args: unknown[]) => connection.console.log(args.map(String).join(" "));
  console.warn = console.error = (...args: unknown[]) => connection.console.error(args.map(String).join(" "));

  const documents = new TextDocuments(TextDocument);
  const apps = new Map<string, AppState>();
  let workspaceFolders: string[] = [];

  /** Unsaved text of every open `.wo` document, by absolute path. */
  const overlay = () => {
    const map = new Map<string, string>();
    for (const doc of documents.all()) {
      const file = uriToFile(doc.uri);
      if (file?.endsWith(".wo")) map.set(file, doc.getText());
    }
    return map;
  };

  const stateOf = (root: string) => {
    let state = apps.get(root);
    if (!state) apps.set(root, (state = { again: false, published: new Set() }));
    return state;
  };

  function requestCheck(root: string): Promise<void> {
    const state = stateOf(root);
    if (state.running) {
      state.again = true;
      return state.running;
    }
    state.running = (async () => {
      do {
        state.again = false;
        try {
          state.latest = await analyseApp(root, overlay());
          publish(state);
        } catch (error) {
          // A throw is a bug in wo: report it in the client's log and keep serving.
          connection.console.error(
            `wo lsp: internal error checking ${root}: ${error instanceof Error ? error.stack : String(error)}`,
          );
        }
      } while (state.again);
      state.running = undefined;
    })();
    return state.running;
  }

  /** The analysis of `root` that includes every edit received so far. */
  async function current(root: string): Promise<AppAnalysis | undefined> {
    const state = stateOf(root);
    if (state.running) await state.running;
    if (!state.latest) await requestCheck(root);
    return state.latest;
  }

  function publish(state: AppState): void {
    const analysis = state.latest!;
    const byFile = new Map<string, { source: SourceFile; diagnostics: LspDiagnostic[] }>();
    for (const d of analysis.result.diagnostics) {
      let entry = byFile.get(d.span.file);
      if (!entry) {
        const text = analysis.result.sources.get(d.span.file);
        // Diagnostics about the folder itself have no file to show them in.
        if (text === undefined) continue;
        byFile.set(d.span.file, (entry = { source: new SourceFile(d.span.file, text), diagnostics: [] }));
      }
      entry.diagnostics.push(toLspDiagnostic(d, entry.source));
    }
    // A folder with its own wo.toml inside this app is another app: its files get their
    // diagnostics from that app's check, never two conflicting sets.
    const ownFiles = [...byFile].filter(
      ([display]) =>
        display.endsWith(configFileName) || appRootOf(displayPathToFile(display), workspaceFolders) === analysis.root,
    );
    const byUri = new Map(ownFiles.map(([display, entry]) => [uriOf(displayPathToFile(display)), entry.diagnostics]));
    for (const uri of state.published) if (!byUri.has(uri)) connection.sendDiagnostics({ uri, diagnostics: [] });
    for (const [uri, diagnostics] of byUri) connection.sendDiagnostics({ uri, diagnostics });
    state.published = new Set(byUri.keys());
  }

  /** The URI the client uses for an open file, else the canonical `file:` URI. */
  function uriOf(file: string): string {
    for (const doc of documents.all()) if (uriToFile(doc.uri) === file) return doc.uri;
    return fileToUri(file);
  }

  /** The document's app, its analysis and the document's path in it. */
  async function contextOf(uri: string) {
    const file = uriToFile(uri);
    if (file === undefined) return undefined;
    const root = appRootOf(file, workspaceFolders);
    const analysis = await current(root);
    const rel = appRelative(root, file);
    const analysed = analysis?.files.get(rel);
    return analysis && analysed ? { analysis, rel, analysed } : undefined;
  }

  connection.onInitialize((params) => {
    workspaceFolders = (params.workspaceFolders ?? [])
      .map((w) => uriToFile(w.uri))
      .filter((f): f is string => f !== undefined);
    const rootUri = params.rootUri ? uriToFile(params.rootUri) : undefined;
    if (workspaceFolders.length === 0 && rootUri) workspaceFolders = [rootUri];
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        definitionProvider: true,
        completionProvider: { triggerCharacters: [" ", ".", ",", ":", "[", "{"] },
      },
      serverInfo: { name: "wo" },
    };
  });

  /** Re-checks the app of a changed file and every app already checked that reads it (an outer folder). */
  const recheck = (uri: string, onlyWo: boolean) => {
    const file = uriToFile(uri);
    if (file === undefined || (onlyWo && !file.endsWith(".wo"))) return;
    const roots = new Set([
      appRootOf(file, workspaceFolders),
      ...[...apps.keys()].filter((root) => isInside(file, root)),
    ]);
    for (const root of roots) void requestCheck(root);
  };
  // Fired on open as well as on every edit.
  documents.onDidChangeContent((e) => recheck(e.document.uri, true));
  // Closing drops the unsaved text: the disk is the truth again.
  documents.onDidClose((e) => recheck(e.document.uri, true));
  // Saved, created or deleted on disk (`.wo` files and `wo.toml`, as the client watches them).
  connection.onDidChangeWatchedFiles((params) => {
    for (const change of params.changes) recheck(change.uri, false);
  });

  connection.onHover(async (params) => {
    const ctx = await contextOf(params.textDocument.uri);
    if (!ctx) return null;
    const offset = offsetIn(ctx.analysed.source, params.position);
    const symbol = symbolAt(ctx.analysed.ast, offset, ctx.analysis.types);
    const markdown = symbol && hoverMarkdown(symbol, ctx.analysis);
    if (!symbol || !markdown) return null;
    return { contents: { kind: "markdown", value: markdown }, range: rangeOf(symbol.at.span, ctx.analysed.source) };
  });

  connection.onDefinition(async (params): Promise<Location | null> => {
    const ctx = await contextOf(params.textDocument.uri);
    if (!ctx) return null;
    const symbol = symbolAt(ctx.analysed.ast, offsetIn(ctx.analysed.source, params.position), ctx.analysis.types);
    const target =
      symbol?.kind === "type" ? symbol.decl?.name : symbol?.kind === "field" ? symbol.field.name : symbol?.fn.name;
    const targetFile = target && ctx.analysis.files.get(target.span.file);
    if (!target || !targetFile) return null;
    return { uri: uriOf(join(ctx.analysis.root, target.span.file)), range: rangeOf(target.span, targetFile.source) };
  });

  connection.onCompletion(async (params) => {
    const doc = documents.get(params.textDocument.uri);
    const ctx = await contextOf(params.textDocument.uri);
    if (!doc || !ctx) return [];
    return completionsAt(doc.getText(), doc.offsetAt(params.position), ctx.rel, ctx.analysis);
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}

function toLspDiagnostic(d: Diagnostic, source: SourceFile): LspDiagnostic {
  return {
    range: rangeOf(d.span, source),
    severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: "wo",
    message: d.message,
  };
}

/** An LSP position (0-based line, UTF-16 character) → offset, clamped into the line. */
function offsetIn(source: SourceFile, position: { line: number; character: number }): number {
  const start = source.lineStarts[position.line];
  if (start === undefined) return source.text.length;
  return Math.min(start + position.character, start + source.lineText(position.line + 1).length);
}
