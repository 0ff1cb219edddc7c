// `wo token-path [dir] [--runtime-dir DIR]`: where the automatic agent token of the app is (or
// will be). Prints the path only: it neither reads the token nor creates anything, so it is safe
// in scripts and logs (`curl -H "Authorization: Bearer $(cat "$(wo token-path)")" …`).

import { resolve } from "node:path";
import { agentTokenPath } from "../../runtime/ops/agent-token.js";
import { PrivateFileError, runtimeDirFor } from "../../runtime/ops/private-files.js";
import type { ParsedArgs } from "./args.js";

export async function runTokenPathCommand(args: ParsedArgs): Promise<number> {
  try {
    process.stdout.write(`${agentTokenPath(runtimeDirFor(resolve(args.first ?? "."), args.value("--runtime-dir")))}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof PrivateFileError)) throw err;
    process.stderr.write(`wo token-path: ${err.message}\n`);
    return 1;
  }
}
