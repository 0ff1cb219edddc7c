// SourceFile: one file's display path and text, plus the line table that turns an offset into
// a 1-based line and column.
//
// Owns: offset → position and "give me line N" for diagnostics. Leaves reading files from disk
// to the commands, and tokenizing to compiler/syntax/.
//
// Columns count UTF-16 code units (what JavaScript strings and chevrotain count), so a
// position printed by `wo` matches what an editor shows for ASCII and BMP text.

export interface Position {
  line: number;
  col: number;
}

export class SourceFile {
  readonly path: string;
  readonly text: string;
  /** Offset of the first character of each line; lineStarts[0] is always 0. */
  readonly lineStarts: number[];

  constructor(path: string, text: string) {
    this.path = path;
    this.text = text;
    this.lineStarts = computeLineStarts(text);
  }

  /** 1-based line and column of `offset` (clamped into the text). */
  positionAt(offset: number): Position {
    const o = Math.max(0, Math.min(Number.isFinite(offset) ? offset : 0, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: o - this.lineStarts[lo]! + 1 };
  }

  /** Text of 1-based line `line` without its line terminator ("" past the end). */
  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return "";
    const next = this.lineStarts[line];
    let end = next === undefined ? this.text.length : next - 1;
    if (end > start && this.text[end - 1] === "\r") end--;
    return this.text.slice(start, end);
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}
