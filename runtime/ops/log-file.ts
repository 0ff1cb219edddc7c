// The background server's output: its terminal is gone, so what it would print (the startup
// table, migration notes, the server's own error lines — never request bodies or tokens) goes
// to `wo.log` in the private runtime directory. Bounded: past `maxBytes` the file moves to
// `wo.log.1` (replacing the previous one) and a new one starts, so at most twice that is kept.

import { closeSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";
import { checkPrivateFile } from "./private-files.js";

export const logRotateBytes = 1024 * 1024;

export interface LogFile {
  write(text: string): void;
}

export function openLogFile(file: string, maxBytes = logRotateBytes): LogFile {
  let fd = openPrivate(file);
  let size = fstatSync(fd).size;
  return {
    write(text) {
      const bytes = Buffer.from(text);
      if (size > 0 && size + bytes.length > maxBytes) {
        closeSync(fd);
        renameSync(file, `${file}.1`);
        fd = openPrivate(file);
        size = 0;
      }
      writeSync(fd, bytes);
      size += bytes.length;
    },
  };
}

function openPrivate(file: string): number {
  checkPrivateFile(file); // an existing log must be private too
  return openSync(file, "a", 0o600);
}
