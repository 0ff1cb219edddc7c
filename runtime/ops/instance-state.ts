// What the private runtime directory says about the app's background instance: `state.json`
// (schema-versioned metadata: state, URL, PID, start time, build — never a secret) and
// `management.key` (the random key that status/stop prove knowledge of). The state file is
// also the start claim: a start creates it whole as "starting" or finds another instance's.
// The PID is for people to inspect; nothing here trusts it (management.ts proves the instance).

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { unlinkQuietly } from "../store/create-whole.js";
import { createPrivateFile, readPrivateFile, writePrivateFile } from "./private-files.js";

export const stateFileName = "state.json";
export const managementKeyFileName = "management.key";
/** A background child's `--db` PostgreSQL URL, until the child has read it (it holds the password). */
export const databaseUrlFileName = "database.url";
export const logFileName = "wo.log";
const schema = 1;

export interface InstanceState {
  schema: typeof schema;
  /** "starting": claimed by a `wo run --background` whose server is not listening yet. */
  state: "starting" | "running";
  /** The process that wrote the state: the starting CLI, then the server. */
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  /** http://host:port once listening. */
  url?: string;
  /** The build's input hash (build-info.json), shortened. */
  build?: string;
}

export type StateRead = { kind: "none" } | { kind: "invalid"; why: string } | { kind: "state"; state: InstanceState };

export function readInstanceState(runtimeDir: string): StateRead {
  const text = readPrivateFile(join(runtimeDir, stateFileName));
  if (text === undefined) return { kind: "none" };
  let value: Partial<InstanceState>;
  try {
    value = JSON.parse(text) as Partial<InstanceState>;
  } catch {
    return { kind: "invalid", why: "it is not JSON" };
  }
  if (value?.schema !== schema)
    return {
      kind: "invalid",
      why: `schema ${String(value?.schema)} is not ${schema} (written by another wo version?)`,
    };
  if (
    (value.state !== "starting" && value.state !== "running") ||
    !Number.isSafeInteger(value.pid) ||
    typeof value.startedAt !== "string"
  ) {
    return { kind: "invalid", why: "it lacks state, pid or startedAt" };
  }
  if (value.state === "running" && typeof value.url !== "string")
    return { kind: "invalid", why: "a running state without a url" };
  return { kind: "state", state: value as InstanceState };
}

/** Claims the runtime directory for a new start; false when a state file is already there. */
export function claimInstance(runtimeDir: string): boolean {
  return createPrivateFile(join(runtimeDir, stateFileName), startingState());
}

/** Dates the claim anew once a long build is done, so it is not taken for an abandoned start. */
export function renewClaim(runtimeDir: string): void {
  writePrivateFile(join(runtimeDir, stateFileName), startingState());
}

function startingState(): string {
  const claim: InstanceState = { schema, state: "starting", pid: process.pid, startedAt: new Date().toISOString() };
  return `${JSON.stringify(claim)}\n`;
}

export function writeRunningState(runtimeDir: string, fields: { url: string; startedAt: Date; build?: string }): void {
  const state: InstanceState = {
    schema,
    state: "running",
    pid: process.pid,
    startedAt: fields.startedAt.toISOString(),
    url: fields.url,
    ...(fields.build ? { build: fields.build } : {}),
  };
  writePrivateFile(join(runtimeDir, stateFileName), `${JSON.stringify(state)}\n`);
}

/** A fresh management key for a new instance, written before the server starts. */
export function writeNewManagementKey(runtimeDir: string): void {
  writePrivateFile(join(runtimeDir, managementKeyFileName), `${randomBytes(32).toString("hex")}\n`);
}

export function readManagementKey(runtimeDir: string): Buffer | undefined {
  const text = readPrivateFile(join(runtimeDir, managementKeyFileName));
  if (text === undefined) return undefined;
  const hex = text.trim();
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : undefined;
}

/**
 * Hands a `--db` PostgreSQL URL to the background child in a private file: a password in argv
 * would be in /proc/PID/cmdline, which every user of the machine can read.
 */
export function writeDatabaseUrl(runtimeDir: string, url: string): void {
  writePrivateFile(join(runtimeDir, databaseUrlFileName), url);
}

/** The URL writeDatabaseUrl left, removed as it is read; undefined when there is none. */
export function takeDatabaseUrl(runtimeDir: string): string | undefined {
  const file = join(runtimeDir, databaseUrlFileName);
  const url = readPrivateFile(file);
  unlinkQuietly(file);
  return url;
}

/**
 * Forgets the instance: its state and key (the agent token and the log stay). With `ownPid`,
 * only if the state is still the one that process wrote (a server removing its own).
 */
export function removeInstance(runtimeDir: string, ownPid?: number): void {
  if (ownPid !== undefined) {
    const read = readInstanceState(runtimeDir);
    if (read.kind === "state" && read.state.pid !== ownPid) return;
  }
  unlinkQuietly(join(runtimeDir, stateFileName));
  unlinkQuietly(join(runtimeDir, managementKeyFileName));
  unlinkQuietly(join(runtimeDir, databaseUrlFileName));
}
