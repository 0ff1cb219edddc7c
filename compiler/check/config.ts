// `wo.toml`, read with smol-toml into WoConfig (model/app.ts) plus the app's identity.
//
// Owns: the keys wo understands, their types and defaults. Other keys and tables are ignored
// with a warning each (WO4101, naming the key): the writeonce examples carry `[runtime]`,
// `[test]`, `app_kind`, … that mean nothing here, and one file may serve both tools, but
// a misspelt `[sever] listen` must not pass silently. A malformed file or a wrong-typed key is
// a WO4xxx error at the key's line:col; the file being absent is fine.

import { parse, TomlError } from "smol-toml";
import type { AuthConfig, JobSettings, RateLimits, TelemetryConfig } from "../../model/app.js";
import { isLoopbackName } from "../../model/loopback.js";
import type { Span } from "../ast.js";
import type { Catalog, WoConfig } from "../catalog.js";
import { defaultJobSettings, defaultLimits } from "../../model/app.js";
import type { DiagnosticBag } from "../diagnostics/diagnostic.js";
import { didYouMean } from "./did-you-mean.js";
import { durationForm, parseDuration } from "../../model/duration.js";
import type { AuditRetention } from "../../model/store.js";

export const configFileName = "wo.toml";

export interface ConfigResult {
  app: Catalog["app"];
  config: WoConfig;
}

export function defaultConfig(): WoConfig {
  return {
    dataDir: ".wo/data",
    mcp: { sessions: true, allowedOrigins: [] },
    allowedOrigins: [],
    maxBodyBytes: 1024 * 1024,
    concurrency: { running: 64, queued: 1024 },
    limits: defaultLimits(),
  };
}

/**
 * `text` undefined means there is no wo.toml: defaults, app name = `dirName`.
 * `file` is the path diagnostics print.
 */
export function readConfig(text: string | undefined, file: string, dirName: string, bag: DiagnosticBag): ConfigResult {
  const result: ConfigResult = { app: { name: dirName, version: "0.0.0" }, config: defaultConfig() };
  if (text === undefined) return result;
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const why = error.message.split("\n")[0]!.replace(/\.$/, "");
      bag.report("WO4004", spanAt(text, file, error.line, error.column), { why });
    } else {
      bag.report("WO4004", spanAt(text, file, 1, 1), { why: String(error) });
    }
    return result;
  }
  const read = new KeyReader(doc, text, file, bag);
  const { app, config } = result;
  app.name = read.string("", "name") ?? app.name;
  app.version = read.string("", "version") ?? app.version;
  const description = read.string("", "description");
  if (description !== undefined) app.description = description;

  // Both are read (so neither is reported as unknown, WO4101); [server] wins.
  const serverListen = read.listen("server", "listen");
  const appListen = read.listen("app", "listen");
  const listen = serverListen ?? appListen;
  // ":8080" (no host, as writeonce apps write it) keeps wo's loopback default host: listening on
  // every interface must be asked for by name (spec/security.md).
  if (listen !== undefined) config.listen = listen.startsWith(":") ? `127.0.0.1${listen}` : listen;
  const maxBody = read.positiveInt("server", "max_body_bytes");
  if (maxBody !== undefined) config.maxBodyBytes = maxBody;
  config.concurrency.running = read.positiveInt("server", "max_running") ?? config.concurrency.running;
  config.concurrency.queued = read.positiveInt("server", "max_queued") ?? config.concurrency.queued;
  const tokenEnv = read.string("server", "token_env");
  if (tokenEnv !== undefined) config.tokenEnv = tokenEnv;
  config.allowedOrigins = read.stringList("server", "allowed_origins") ?? config.allowedOrigins;
  // Only the word "auto": a token written into wo.toml would be a secret in the repository.
  if (
    read.typed(
      "server",
      "token",
      '"auto" (the automatic agent token; put real tokens in token_env)',
      (v): v is "auto" => v === "auto",
    )
  )
    config.token = "auto";
  config.dataDir = read.string("database", "data_dir") ?? config.dataDir;
  const url = read.postgresUrl("database", "url");
  if (url !== undefined) config.databaseUrl = url;
  const passwordEnv = read.string("database", "password_env");
  if (passwordEnv !== undefined) config.databasePasswordEnv = passwordEnv;
  const poolSize = read.positiveInt("database", "pool_size");
  if (poolSize !== undefined) config.databasePoolSize = poolSize;
  const statementTimeout = read.positiveInt("database", "statement_timeout_ms");
  if (statementTimeout !== undefined) config.databaseStatementTimeoutMs = statementTimeout;
  const maxBytes = read.positiveInt("database", "max_bytes");
  if (maxBytes !== undefined) config.databaseMaxBytes = maxBytes;
  const retention = read.positiveInt("live", "retention");
  if (retention !== undefined) config.liveRetention = retention;
  const streamLimits = {
    maxStreams: read.positiveInt("live", "max_streams"),
    maxStreamsPerCaller: read.positiveInt("live", "max_streams_per_client"),
    maxQueuedBytes: read.positiveInt("live", "max_queued_bytes"),
    stallMs: read.positiveInt("live", "stall_timeout_ms"),
  };
  const givenLimits = Object.entries(streamLimits).filter(([, v]) => v !== undefined);
  if (givenLimits.length > 0) config.streamLimits = Object.fromEntries(givenLimits);
  const auditRetention = readAuditRetention(read);
  if (auditRetention !== undefined) config.auditRetention = auditRetention;
  config.mcp.sessions = read.bool("mcp", "sessions") ?? config.mcp.sessions;
  const maxSessions = read.positiveInt("mcp", "max_sessions");
  if (maxSessions !== undefined) config.mcp.maxSessions = maxSessions;
  config.mcp.allowedOrigins = read.stringList("mcp", "allowed_origins") ?? config.mcp.allowedOrigins;
  const auth = readAuth(read, doc);
  if (auth !== undefined) config.auth = auth;
  for (const [kind, limits] of Object.entries(config.limits)) {
    limits.steps = read.positiveInt("limits", `${kind}_steps`) ?? limits.steps;
    limits.millis = read.positiveInt("limits", `${kind}_millis`) ?? limits.millis;
  }
  const adminListen = read.listen("admin", "listen");
  // ":9090" keeps the loopback host, as `[server] listen` does: metrics are for the operator.
  if (adminListen !== undefined)
    config.adminListen = adminListen.startsWith(":") ? `127.0.0.1${adminListen}` : adminListen;
  const jobs = readJobs(read);
  if (jobs !== undefined) config.jobs = jobs;
  const telemetry = readTelemetry(read);
  if (telemetry !== undefined) config.telemetry = telemetry;
  const rateLimits: RateLimits = {};
  for (const kind of ["reads", "writes", "calls"] as const) {
    const perMinute = read.positiveInt("limits", `${kind}_per_minute`);
    if (perMinute !== undefined) rateLimits[kind] = perMinute;
  }
  if (Object.keys(rateLimits).length > 0) config.rateLimits = rateLimits;
  // The layout keys (spec/language.md, "Workspaces"): read for their types here, used by layout.ts.
  read.string("", "kind");
  read.stringList("workspace", "apps");
  read.stringList("workspace", "shared");
  read.stringList("dependencies", "shared");
  warnUnknownKeys(doc, read.known, text, file, bag);
  return result;
}

/** `[jobs]` (spec/operations.md, "Jobs"); undefined when the table sets none of its keys. */
function readJobs(read: KeyReader): JobSettings | undefined {
  const given = {
    maxAttempts: read.positiveInt("jobs", "max_attempts"),
    retryBaseMs: read.positiveInt("jobs", "retry_base_ms"),
    retryMaxMs: read.positiveInt("jobs", "retry_max_ms"),
    leaseSeconds: read.positiveInt("jobs", "lease_seconds"),
    pollMs: read.positiveInt("jobs", "poll_ms"),
    workerRoles: read.stringList("jobs", "worker_roles"),
  };
  if (Object.values(given).every((v) => v === undefined)) return undefined;
  const jobs = defaultJobSettings();
  for (const [key, value] of Object.entries(given)) if (value !== undefined) Object.assign(jobs, { [key]: value });
  return jobs;
}

/** `[telemetry]` (spec/operations.md, "Traces"); undefined when the table sets none of its keys. */
function readTelemetry(read: KeyReader): TelemetryConfig | undefined {
  const telemetry: TelemetryConfig = {};
  const endpoint = read.typed(
    "telemetry",
    "otlp_endpoint",
    'an http:// or https:// URL, e.g. "http://127.0.0.1:4318"',
    (v): v is string => typeof v === "string" && /^https?:\/\/[^\s/?#]+[^\s?#]*$/i.test(v),
  );
  if (endpoint !== undefined) telemetry.otlpEndpoint = endpoint;
  const ratio = read.typed(
    "telemetry",
    "sample_ratio",
    "a number from 0 to 1",
    (v): v is number => typeof v === "number" && v >= 0 && v <= 1,
  );
  if (ratio !== undefined) telemetry.sampleRatio = ratio;
  const serviceName = read.string("telemetry", "service_name");
  if (serviceName !== undefined) telemetry.serviceName = serviceName;
  return Object.keys(telemetry).length > 0 ? telemetry : undefined;
}

// `[auth]` (spec/security.md, "OAuth 2.1 bearer tokens (JWT)"). The issuer and the JWKS are
// where signing keys come from, so plain http:// is accepted only where no network sits between
// (a loopback host); a query or fragment has no place in an issuer (RFC 8414 §2).
const serverUrl =
  'an https:// URL (http:// only on a loopback host) without query or fragment, e.g. "https://login.example.com"';
const claimName = "a claim name (a non-empty string)";
// A scope lands inside the challenge's quoted `scope="…"` (RFC 6750 §3: scope-token characters).
const scopeList = 'an array of scope names without spaces, quotes or backslashes, e.g. ["mcp:tools"]';

function readAuth(read: KeyReader, doc: Record<string, unknown>): AuthConfig | undefined {
  const issuer = read.typed("auth", "issuer", serverUrl, isServerUrl);
  const audience = read.typed(
    "auth",
    "audience",
    "an absolute URI or a list of them (the token's expected `aud`)",
    isAudience,
  );
  const jwksUrl = read.typed("auth", "jwks_url", serverUrl, isServerUrl);
  const userClaim = read.typed("auth", "user_claim", claimName, isClaimName);
  const roleClaim = read.typed("auth", "role_claim", claimName, isClaimName);
  const scopes = read.typed("auth", "scopes_supported", scopeList, isScopeList);
  const table = doc.auth;
  if (typeof table !== "object" || table === null || Array.isArray(table)) return undefined;
  if (issuer === undefined) {
    // Absent (a wrong value is already reported): without an issuer no token can be checked.
    if (!("issuer" in table)) read.missing("auth", "issuer", `set when [auth] is present: ${serverUrl}`);
    return undefined;
  }
  const auth: AuthConfig = { issuer, userClaim: userClaim ?? "sub", roleClaim: roleClaim ?? "role" };
  if (audience !== undefined) auth.audience = typeof audience === "string" ? [audience] : audience;
  if (jwksUrl !== undefined) auth.jwksUrl = jwksUrl;
  if (scopes !== undefined) auth.scopesSupported = scopes;
  return auth;
}

function isServerUrl(v: unknown): v is string {
  if (typeof v !== "string") return false;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return false;
  }
  if (url.search !== "" || url.hash !== "" || v.includes("#") || url.username !== "" || url.password !== "")
    return false;
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackName(url.hostname));
}

function isAudience(v: unknown): v is string | string[] {
  const one = (x: unknown) => typeof x === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(x);
  return one(v) || (Array.isArray(v) && v.length > 0 && v.every(one));
}

function isClaimName(v: unknown): v is string {
  return typeof v === "string" && v.length > 0;
}

function isScopeList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string" && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(x));
}

/** `[audit] retention`: a duration (`"30d"`) keeps entries that young, a number that many entries. */
function readAuditRetention(read: KeyReader): AuditRetention | undefined {
  const value = read.typed(
    "audit",
    "retention",
    `a positive number of entries or ${durationForm} (as a string)`,
    (v): v is number | string =>
      (typeof v === "number" && Number.isSafeInteger(v) && v > 0) ||
      (typeof v === "string" && parseDuration(v) !== undefined),
  );
  if (value === undefined) return undefined;
  return typeof value === "number" ? { maxRows: value } : { maxAgeMs: parseDuration(value)! };
}

/** Reads one typed key; a wrong type is reported at the key's position in the file. */
class KeyReader {
  constructor(
    private readonly doc: Record<string, unknown>,
    private readonly text: string,
    private readonly file: string,
    private readonly bag: DiagnosticBag,
  ) {}

  string(table: string, key: string): string | undefined {
    return this.typed(table, key, "a string", (v): v is string => typeof v === "string");
  }

  bool(table: string, key: string): boolean | undefined {
    return this.typed(table, key, "true or false", (v): v is boolean => typeof v === "boolean");
  }

  positiveInt(table: string, key: string): number | undefined {
    return this.typed(
      table,
      key,
      "a positive integer",
      (v): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0,
    );
  }

  stringList(table: string, key: string): string[] | undefined {
    return this.typed(
      table,
      key,
      "an array of strings",
      (v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string"),
    );
  }

  /**
   * `[database] url` names a server database; the only kind wo connects to is PostgreSQL.
   * Another URL (a writeonce engine's `wo://…`, `sqlite:…`, a path) is not refused — programs
   * written for writeonce carry one — but warned about (WO4102): wo keeps its embedded store in
   * `[database] data_dir`.
   */
  postgresUrl(table: string, key: string): string | undefined {
    const url = this.string(table, key);
    if (url === undefined || /^postgres(?:ql)?:\/\//i.test(url)) return url;
    const { line, col } = locateKey(this.text, table, key);
    this.bag.report("WO4102", spanAt(this.text, this.file, line, col), { key: `${table}.${key}`, value: url });
    return undefined;
  }

  /** "host:port" or ":port" with a port 0–65535 (0 picks a free port). */
  listen(table: string, key: string): string | undefined {
    return this.typed(table, key, 'a "host:port" string, e.g. "127.0.0.1:8080" or ":8080"', (v): v is string => {
      if (typeof v !== "string") return false;
      const m = /^(.*):(\d{1,5})$/.exec(v);
      return m !== null && Number(m[2]) <= 65535;
    });
  }

  /** Every key asked for, per table ("" is the top level): what wo reads (WO4101 names the rest). */
  readonly known = new Map<string, Set<string>>([["", new Set()]]);

  typed<T>(table: string, key: string, expected: string, is: (v: unknown) => v is T): T | undefined {
    if (!this.known.has(table)) this.known.set(table, new Set());
    this.known.get(table)!.add(key);
    const section = table === "" ? this.doc : this.doc[table];
    if (section === undefined) return undefined;
    if (typeof section !== "object" || section === null || Array.isArray(section)) {
      // `server = 3` where a table is expected: report once, at the key.
      if (key === firstKeyOf[table]) this.report(table, "", "a table");
      return undefined;
    }
    const value = (section as Record<string, unknown>)[key];
    if (value === undefined) return undefined;
    if (is(value)) return value;
    this.report(table, key, expected);
    return undefined;
  }

  /** A required key absent from its table: reported at the table's header. */
  missing(table: string, key: string, expected: string): void {
    const { line, col } = locateKey(this.text, table, "");
    this.bag.report("WO4005", spanAt(this.text, this.file, line, col), { key: `${table}.${key}`, expected });
  }

  private report(table: string, key: string, expected: string): void {
    const shown = table === "" ? key : key === "" ? table : `${table}.${key}`;
    const { line, col } = locateKey(this.text, table, key);
    this.bag.report("WO4005", spanAt(this.text, this.file, line, col), { key: shown, expected });
  }
}

/** WO4101 for each key wo does not read: `runtime.wo`, `database.isolation`, an unknown table with no keys. */
function warnUnknownKeys(
  doc: Record<string, unknown>,
  knownKeys: Map<string, Set<string>>,
  text: string,
  file: string,
  bag: DiagnosticBag,
): void {
  const topLevel = [...knownKeys.get("")!, ...[...knownKeys.keys()].filter((t) => t !== "")];
  // (table, "") is a table header, ("", key) a top-level key, (table, key) a key in a table.
  const report = (table: string, key: string) => {
    const shown = table === "" ? key : key === "" ? table : `${table}.${key}`;
    // A misspelt table (`[sever]`) is suggested by its name, a misspelt key within its table.
    const hint =
      table !== "" && key !== "" && knownKeys.has(table)
        ? didYouMean(key, knownKeys.get(table)!)
        : didYouMean(table || key, topLevel);
    const { line, col } = locateKey(text, table, key);
    bag.report("WO4101", spanAt(text, file, line, col), { key: shown, hint });
  };
  for (const [name, value] of Object.entries(doc)) {
    const keys = knownKeys.get(name);
    if (keys !== undefined && name !== "") {
      // A known table: its unknown keys (a known table given as a value is WO4005, elsewhere).
      if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
      for (const key of Object.keys(value)) if (!keys.has(key)) report(name, key);
    } else if (!knownKeys.get("")!.has(name)) {
      const isTable = typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
      const inner = isTable ? Object.keys(value) : [];
      if (!isTable) report("", name);
      else if (inner.length === 0) report(name, "");
      else for (const key of inner) report(name, key);
    }
  }
}

/** The key of each table that reports "must be a table" (so it is reported only once). */
const firstKeyOf: Record<string, string> = {
  server: "listen",
  app: "listen",
  database: "data_dir",
  mcp: "sessions",
  live: "retention",
  auth: "issuer",
  limits: "method_steps",
  admin: "listen",
  telemetry: "otlp_endpoint",
  workspace: "apps",
  dependencies: "shared",
};

/**
 * Where `key` is written inside `[table]` (or at the top when table is ""); smol-toml does not
 * keep value positions. `key === ""` locates the table header (or `table = …`). Falls back to 1:1.
 */
export function locateKey(text: string, table: string, key: string): { line: number; col: number } {
  const lines = text.split("\n");
  let current = "";
  const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = /^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]/.exec(line);
    if (header) {
      current = header[1]!;
      if (key === "" && current === table) return { line: i + 1, col: line.indexOf("[") + 1 };
      continue;
    }
    const wantTable = key === "" ? "" : table;
    const wantKey = key === "" ? table : key;
    if (current === wantTable) {
      const m = new RegExp(`^(\\s*)${escaped(wantKey)}\\s*=`).exec(line);
      if (m) return { line: i + 1, col: m[1]!.length + 1 };
    }
    // Dotted form at the top level: `server.listen = …`.
    if (current === "" && key !== "" && table !== "") {
      const m = new RegExp(`^(\\s*)${escaped(table)}\\.${escaped(key)}\\s*=`).exec(line);
      if (m) return { line: i + 1, col: m[1]!.length + 1 };
    }
  }
  return { line: 1, col: 1 };
}

/** A one-character span at a 1-based line:col of `text`. */
function spanAt(text: string, file: string, line: number, col: number): Span {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) break;
    offset = nl + 1;
  }
  offset = Math.min(offset + col - 1, text.length);
  return { file, offset, end: Math.min(offset + 1, text.length), line, col };
}
