/** One file of the build, relative to the build folder. `.ts` files are compiled by ts-morph. */
export interface EmittedFile {
  path: string;
  text: string;
}

/**
 * A file as the build writes it: whole, or (the large JSON files) as pieces of text rendered
 * while they are written, so the whole text is never held at once.
 */
export type WrittenFile = EmittedFile | { path: string; chunks: Iterable<string> };
