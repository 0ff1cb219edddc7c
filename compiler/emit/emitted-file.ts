/** One file of the build, relative to the build folder. `.ts` files are compiled by ts-morph. */
export interface EmittedFile {
  path: string;
  text: string;
}
