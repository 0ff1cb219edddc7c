// chevrotain as the compiler loads it: from the one-file bundle its package ships
// (lib/chevrotain.mjs), not from its module tree. The tree imports some 640 files of lodash-es,
// which cost every `wo check` (and `wo build`, and the language server) about 0.3 s of CPU
// before it parsed anything; the bundle, the same release, loads in about 10 ms. The package's
// exports map names only the tree, so the bundle is found beside it; a chevrotain that no
// longer ships one is loaded as a tree. Every module of ours imports chevrotain from here, so
// one copy is loaded (EOF and the token types must be the parser's own).
import type * as Chevrotain from "chevrotain";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const bundle = join(dirname(createRequire(import.meta.url).resolve("chevrotain")), "..", "chevrotain.mjs");
const chevrotain = (
  existsSync(bundle) ? await import(pathToFileURL(bundle).href) : await import("chevrotain")
) as typeof Chevrotain;

export const { createToken, EmbeddedActionsParser, EOF, isRecognitionException, Lexer, tokenMatcher } = chevrotain;
export type { IToken, TokenType } from "chevrotain";
