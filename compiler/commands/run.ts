// `wo run`: placeholder until the command lands (it is being written in parallel).
export async function runRunCommand(_args: string[]): Promise<number> {
  process.stderr.write("wo run: not available in this build yet\n");
  return 2;
}
