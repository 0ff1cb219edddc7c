// `wo check`: placeholder until the command lands (it is being written in parallel).
export async function runCheckCommand(_args: string[]): Promise<number> {
  process.stderr.write("wo check: not available in this build yet\n");
  return 2;
}
