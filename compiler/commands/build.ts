// `wo build`: placeholder until the command lands (it is being written in parallel).
export async function runBuildCommand(_args: string[]): Promise<number> {
  process.stderr.write("wo build: not available in this build yet\n");
  return 2;
}
