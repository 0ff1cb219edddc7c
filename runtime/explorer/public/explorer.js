// The wo explorer: browse the app's types and rows, call any REST endpoint or MCP tool through a
// form generated from its input schema, and see the exact HTTP exchange. Plain DOM code, no
// framework. All data comes from this server (GET /explorer/app.json, the app's REST routes and
// /mcp) with the bearer token when one is set; app text reaches the page only through
// textContent, never as HTML.

import { schemaForm } from "./schema-form.js";

const tokenKey = "wo.token";
let token = sessionStorage.getItem(tokenKey) ?? "";
let model;

const $ = (id) => document.getElementById(id);

/** An element with a class and text: the one way this page puts text on screen. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text, onClick, className) {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// ---- HTTP, recorded -------------------------------------------------------------------------

/**
 * One request through fetch, returned with everything shown in the exchange panel: the request
 * line, the headers this page sets, the body as sent; the status, every response header the
 * browser exposes, the body as received.
 */
async function exchange(method, path, { headers = {}, body } = {}) {
  const sent = { accept: "application/json", ...headers };
  if (body !== undefined) sent["content-type"] = "application/json";
  if (token) sent.authorization = `Bearer ${token}`;
  const request = { line: `${method} ${path} HTTP/1.1`, headers: sent, body };
  let response;
  try {
    response = await fetch(path, { method, headers: sent, body, cache: "no-store", credentials: "omit" });
  } catch (err) {
    return { request, error: String(err?.message ?? err) };
  }
  const text = await response.text();
  const received = [];
  response.headers.forEach((value, name) => received.push([name, value]));
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (response.status === 401) showTokenForm("The server answered 401: it needs a bearer token.");
  return { request, status: response.status, statusText: response.statusText, headers: received, text, json };
}

function renderExchange(ex) {
  const box = el("div", "exchange");
  const req = el("div", "half");
  req.append(el("h4", "", "Request"));
  const reqLines = [ex.request.line, ...Object.entries(ex.request.headers).map(([n, v]) => `${n}: ${n === "authorization" ? "Bearer ••••••" : v}`)];
  req.append(el("pre", "http", reqLines.join("\n") + (ex.request.body !== undefined ? `\n\n${ex.request.body}` : "")));
  req.append(el("p", "note", "Plus the headers the browser adds itself (Host, Origin, User-Agent, …)."));
  const res = el("div", "half");
  res.append(el("h4", "", "Response"));
  if (ex.error) {
    res.append(el("pre", "http bad", `No response: ${ex.error}`));
  } else {
    const ok = ex.status < 400 && !(ex.json && (ex.json.error || ex.json.result?.isError));
    const statusLine = el("pre", `http status ${ok ? "good" : "bad"}`, `HTTP/1.1 ${ex.status} ${ex.statusText}`);
    res.append(statusLine);
    const headerText = ex.headers.map(([n, v]) => `${n}: ${v}`).join("\n");
    const bodyText = ex.json !== undefined ? JSON.stringify(ex.json, null, 2) : ex.text;
    const result = toolResult(ex.json);
    if (result !== undefined) {
      res.append(el("h4", "", ex.json.result.isError ? "Tool error" : "Tool result"));
      res.append(el("pre", `http tool-result ${ex.json.result.isError ? "bad" : ""}`, result));
    }
    res.append(el("pre", "http", headerText + (bodyText ? `\n\n${bodyText}` : "")));
    if (ex.json !== undefined) res.append(el("p", "note", "JSON body shown indented."));
  }
  box.append(req, res);
  return box;
}

/**
 * What an MCP tools/call answered, readable: its structuredContent, else each text content
 * parsed as JSON where it is JSON (a tool's text is the JSON of its result, escaped in the body).
 */
function toolResult(body) {
  const result = body?.result;
  if (!result || !Array.isArray(result.content)) return undefined;
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return result.content
    .map((c) => {
      if (c?.type !== "text") return JSON.stringify(c, null, 2);
      try {
        return JSON.stringify(JSON.parse(c.text), null, 2);
      } catch {
        return c.text;
      }
    })
    .join("\n\n");
}

// ---- MCP: a 2025-06-18 session over fetch -----------------------------------------------------

const mcpVersion = "2025-06-18";
const mcp = { ready: false, session: undefined, nextId: 1 };

function mcpHeaders() {
  const h = { accept: "application/json, text/event-stream", "mcp-protocol-version": mcpVersion };
  if (mcp.session) h["mcp-session-id"] = mcp.session;
  return h;
}

async function mcpStart() {
  mcp.ready = false;
  mcp.session = undefined;
  const init = { jsonrpc: "2.0", id: mcp.nextId++, method: "initialize", params: { protocolVersion: mcpVersion, capabilities: {}, clientInfo: { name: "wo-explorer", version: "1" } } };
  const ex = await exchange("POST", model.mcp.path, { headers: { accept: "application/json, text/event-stream" }, body: JSON.stringify(init) });
  if (ex.error || ex.status !== 200 || !ex.json?.result) return ex;
  mcp.session = ex.headers.find(([n]) => n === "mcp-session-id")?.[1];
  await exchange("POST", model.mcp.path, { headers: mcpHeaders(), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  mcp.ready = true;
  return undefined;
}

async function callTool(name, args) {
  if (!mcp.ready) {
    const failed = await mcpStart();
    if (failed) return failed;
  }
  const call = () => exchange("POST", model.mcp.path, { headers: mcpHeaders(), body: JSON.stringify({ jsonrpc: "2.0", id: mcp.nextId++, method: "tools/call", params: { name, arguments: args } }) });
  let ex = await call();
  if (ex.status === 404 && mcp.session) {
    // The session ended (the server restarted): start a new one and send the call again.
    const failed = await mcpStart();
    if (failed) return failed;
    ex = await call();
  }
  return ex;
}

// ---- REST calls from an operation's input ----------------------------------------------------

/** An operand as query text: `in` lists comma-separated, with `\` before a comma or backslash inside a value. */
function queryOperand(operand) {
  return Array.isArray(operand) ? operand.map((v) => String(v).replace(/[\\,]/g, (c) => `\\${c}`)).join(",") : String(operand);
}

/** Method, path, query and body for a REST endpoint, given the operation's input object. */
function restRequest(endpoint, input) {
  const values = { ...input };
  let path = endpoint.path;
  // `:id`, and a relation's target (`/api/posts/:id/tags/:tag`): each from the input property of that name.
  for (const param of path.match(/:[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const name = param.slice(1);
    if (values[name] === undefined) return { error: `${name}: required (it goes in the path)` };
    path = path.replace(param, encodeURIComponent(String(values[name])));
    delete values[name];
  }
  if (endpoint.method === "GET" || endpoint.method === "DELETE") {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(values)) {
      // A list's `where: { field: { op: value } }` travels as `field[op]=value` (spec/rest.md "List").
      if (k === "where" && v && typeof v === "object") for (const [field, ops] of Object.entries(v)) for (const [op, operand] of Object.entries(ops ?? {})) query.set(`${field}[${op}]`, queryOperand(operand));
      else query.set(k, typeof v === "string" ? v : JSON.stringify(v));
    }
    const q = query.toString();
    return { method: endpoint.method, path: q ? `${path}?${q}` : path };
  }
  return { method: endpoint.method, path, body: JSON.stringify(values) };
}

// ---- Views -----------------------------------------------------------------------------------

const view = () => $("view");

function setStatus(text) {
  $("status").textContent = text;
  $("status").hidden = !text;
}

function endpointsOf(type) {
  return model.endpoints.filter((e) => type.rest.some((base) => e.path === base || e.path.startsWith(`${base}/`)));
}

function toolsOf(type) {
  return model.mcp.tools.filter((t) => t.name.startsWith(`${type.snake}_`) && model.types.every((o) => o === type || !t.name.startsWith(`${o.snake}_`) || o.snake.length < type.snake.length));
}

function renderOverview() {
  const v = view();
  v.replaceChildren();
  v.append(el("h2", "", "Overview"));
  const cards = el("div", "cards");
  for (const type of model.types) {
    const card = el("a", "card");
    card.href = `#type=${encodeURIComponent(type.name)}`;
    card.append(el("h3", "", type.name));
    if (type.description) card.append(el("p", "muted", type.description));
    card.append(el("p", "small", `${type.fields.length} fields · ${endpointsOf(type).length} routes · ${toolsOf(type).length} tools`));
    cards.append(card);
  }
  v.append(cards);
  v.append(el("h3", "", "REST endpoints"));
  v.append(endpointTable(model.endpoints));
}

function endpointTable(endpoints) {
  const table = el("table", "grid");
  const head = el("tr");
  for (const h of ["method", "path", "operation"]) head.append(el("th", "", h));
  table.append(head);
  for (const e of endpoints) {
    const tr = el("tr");
    const m = el("td");
    m.append(el("span", `method ${e.method.toLowerCase()}`, e.method));
    tr.append(m, el("td", "mono", e.path), el("td", "mono", e.op));
    table.append(tr);
  }
  return table;
}

function renderType(type) {
  const v = view();
  v.replaceChildren();
  const title = el("h2", "", type.name);
  v.append(title);
  if (type.description) v.append(el("p", "muted", type.description));

  // The rows come first: they are what a person opens a type for.
  const list = model.endpoints.find((e) => e.method === "GET" && e.op === `${type.snake}_list`);
  const rowsBox = el("div", "rows");
  let reload = () => {};
  if (list) {
    v.append(el("h3", "", "Rows"));
    reload = rowsBrowser(type, list, rowsBox);
    v.append(rowsBox);
  }

  v.append(el("h3", "", "Operations"));
  const callBox = el("div", "call-box");
  v.append(operationButtons(endpointsOf(type), toolsOf(type), callBox, reload), callBox);

  v.append(el("h3", "", "Fields"));
  v.append(fieldTable(type));
}

function fieldTable(type) {
  const fields = el("table", "grid");
  const head = el("tr");
  for (const h of ["name", "type", "", "description"]) head.append(el("th", "", h));
  fields.append(head);
  for (const f of type.fields) {
    const tr = el("tr");
    const flags = [f.requiredOnCreate ? "required" : "", f.optional ? "optional" : "", f.unique ? "unique" : "", f.writable ? (f.updatable === false ? "set once" : "") : "read-only"].filter(Boolean);
    const flagCell = el("td", "flags");
    for (const flag of flags) flagCell.append(el("span", `tag ${flag}`, flag));
    tr.append(el("td", "mono", f.name), el("td", "mono", f.type), flagCell, el("td", "muted", f.description ?? ""));
    fields.append(tr);
  }
  return fields;
}

/** A button per REST endpoint and MCP tool; each opens its call form in `callBox`. */
function operationButtons(endpoints, tools, callBox, afterWrite, initial) {
  const ops = el("div", "ops");
  for (const e of endpoints) {
    const b = button("", () => openCall(callBox, { kind: "rest", endpoint: e }, afterWrite, initial), "op");
    b.append(el("span", `method ${e.method.toLowerCase()}`, e.method), el("span", "mono", ` ${e.path}`));
    ops.append(b);
  }
  for (const t of tools) {
    const b = button("", () => openCall(callBox, { kind: "mcp", tool: t }, afterWrite, initial), "op");
    b.append(el("span", "method mcp", "MCP"), el("span", "mono", ` ${t.name}`));
    ops.append(b);
  }
  return ops;
}

// ---- Rows, refs and relations ----------------------------------------------------------------

/** The type a field's values name: `ref Author` → Author, `multi Tag` → Tag, `backlink Comment.post` → Comment. */
function targetOf(field) {
  const m = /^(ref|multi|backlink)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(field.type);
  return m ? { kind: m[1], type: model.types.find((t) => t.name === m[2]) } : undefined;
}

function rowHref(type, id) {
  return `#type=${encodeURIComponent(type.name)}&id=${encodeURIComponent(String(id))}`;
}

/** The route of one of `type`'s operations, by its op name (`post_get`, `post_tags`, …). */
function endpointFor(type, op, method = "GET") {
  return model.endpoints.find((e) => e.op === op && e.method === method && type.rest.some((base) => e.path.startsWith(`${base}/`)));
}

/** A value as table text (cut at 80 characters, the whole on hover), or a link for an id or a ref. */
function valueCell(type, name, v, cut = true) {
  const text = v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const shown = cut && text.length > 80 ? `${text.slice(0, 80)}…` : text;
  const td = el("td", v === null || v === undefined ? "muted" : "");
  const field = type.fields.find((f) => f.name === name);
  const target = name === "id" ? { kind: "ref", type } : field ? targetOf(field) : undefined;
  if (target?.kind === "ref" && target.type && endpointFor(target.type, `${target.type.snake}_get`) && (typeof v === "number" || typeof v === "string")) {
    const a = el("a", name === "id" ? "row-link" : "ref-link", shown);
    a.href = rowHref(target.type, v);
    if (name !== "id") a.title = `${target.type.name} ${v}`;
    td.append(a);
  } else {
    td.textContent = shown;
  }
  if (shown !== text) td.title = text;
  return td;
}

/** Filters, a page of rows and "next page" through the type's list route; returns a reload function. */
function rowsBrowser(type, list, box) {
  const filters = schemaForm(list.inputSchema ?? {}, { omit: ["cursor"], idPrefix: "filter", emptyText: "No filters.", singleLine: true });
  // Filters fold away so the rows are on the first screen; they open on a click.
  const fold = el("details", "filters");
  fold.append(el("summary", "", "Filters, sort and paging"));
  const form = el("form");
  form.append(filters.element);
  const load = el("button", "", "Load rows");
  load.type = "submit";
  form.append(load);
  fold.append(form);
  const out = el("div");
  box.append(fold, out);
  let pages = [];

  async function show(cursor) {
    const input = filters.read();
    if (!input.ok) {
      out.replaceChildren(el("p", "error", input.error));
      return;
    }
    const query = { ...input.value, ...(cursor ? { cursor } : {}) };
    const req = restRequest(list, query);
    const ex = await exchange(req.method, req.path);
    out.replaceChildren();
    if (ex.status !== 200 || !Array.isArray(ex.json?.items)) {
      out.append(el("p", "error", ex.json?.detail ?? ex.error ?? `HTTP ${ex.status}`));
      return;
    }
    out.append(rowTable(type, ex.json.items));
    if (ex.json.items.length > 0) out.append(el("p", "note", "Open a row by its id; a ref opens the row it names."));
    const nav = el("div", "pager");
    if (ex.json.items.length > 0 || pages.length > 0) nav.append(el("span", "muted", `${ex.json.items.length} row${ex.json.items.length === 1 ? "" : "s"} · page ${pages.length + 1}`));
    if (pages.length > 0) {
      nav.append(button("Previous page", () => { pages.pop(); void show(pages.at(-1)); }, "secondary"));
    }
    if (ex.json.nextCursor) nav.append(button("Next page", () => { pages.push(ex.json.nextCursor); void show(ex.json.nextCursor); }, "secondary"));
    const details = el("details", "raw");
    details.append(el("summary", "", "HTTP exchange"), renderExchange(ex));
    out.append(nav, details);
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    pages = [];
    void show(undefined);
  });
  void show(undefined);
  return () => void show(pages.at(-1));
}

function rowTable(type, items) {
  if (items.length === 0) return el("p", "muted", "No rows.");
  const columns = type.fields.filter((f) => items.some((row) => Object.hasOwn(row, f.name))).map((f) => f.name);
  for (const row of items) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
  const table = el("table", "grid data");
  const head = el("tr");
  for (const c of columns) head.append(el("th", "mono", c));
  table.append(head);
  for (const row of items) {
    const tr = el("tr");
    for (const c of columns) tr.append(valueCell(type, c, row[c]));
    table.append(tr);
  }
  return table;
}

/**
 * One row (`#type=T&id=N`): its fields (refs as links), its relations (each a list of linked
 * rows), and what can be done to it: edit through its update route, delete, its methods. Every
 * call is a real REST request whose exchange is shown.
 */
async function renderRow(type, id) {
  const v = view();
  v.replaceChildren();
  const back = el("a", "back", `← ${type.name} rows`);
  back.href = `#type=${encodeURIComponent(type.name)}`;
  v.append(back, el("h2", "", `${type.name} ${id}`));
  const get = endpointFor(type, `${type.snake}_get`);
  if (!get) {
    v.append(el("p", "muted", `${type.name} has no get route.`));
    return;
  }
  const path = get.path.replace(":id", encodeURIComponent(id));
  const ex = await exchange("GET", path);
  if (location.hash !== rowHref(type, id)) return; // the person has moved on
  const record = el("div", "record");
  v.append(record);
  const raw = el("details", "raw");
  raw.append(el("summary", "", "HTTP exchange"), renderExchange(ex));
  if (ex.status !== 200 || !ex.json || typeof ex.json !== "object") {
    record.append(el("p", "error", ex.json?.detail ?? ex.error ?? `HTTP ${ex.status}`), raw);
    return;
  }
  const row = ex.json;
  const table = el("table", "grid record-fields");
  for (const [name, value] of Object.entries(row)) {
    const tr = el("tr");
    tr.append(el("th", "mono", name), valueCell(type, name, value, false));
    table.append(tr);
  }
  record.append(table, raw);

  // Actions on this row: edit, delete, and any other operation of its own (methods, relations).
  const actions = el("div", "ops row-actions");
  const callBox = el("div", "call-box");
  const update = endpointFor(type, `${type.snake}_update`, "PATCH");
  const remove = endpointFor(type, `${type.snake}_delete`, "DELETE");
  if (update) actions.append(button("Edit", () => openEdit(callBox, type, update, row), "edit"));
  if (remove) actions.append(button("Delete", () => openDelete(callBox, type, remove, row), "danger"));
  const own = endpointsOf(type).filter((e) => e.path.includes("/:id") && e !== get && e !== update && e !== remove && e.op !== "subscribe");
  v.append(el("h3", "", "Actions"), actions, operationButtons(own, [], callBox, () => void renderRow(type, id), { id: row.id }), callBox);

  // Relations: the rows each multi or backlink field names, through the type's relation routes.
  const relations = type.fields.map((f) => ({ field: f, target: targetOf(f) })).filter((r) => r.target && r.target.kind !== "ref" && r.target.type);
  for (const { field, target } of relations) {
    const route = endpointFor(type, `${type.snake}_${field.name}`);
    if (!route) continue;
    const section = el("section", "relation");
    section.dataset.field = field.name;
    section.append(el("h3", "", `${field.name} (${target.type.name})`));
    v.append(section);
    const rel = await exchange("GET", route.path.replace(":id", encodeURIComponent(id)));
    if (rel.status !== 200 || !Array.isArray(rel.json?.items)) {
      section.append(el("p", "error", rel.json?.detail ?? rel.error ?? `HTTP ${rel.status}`));
      continue;
    }
    section.append(rowTable(target.type, rel.json.items));
    if (rel.json.nextCursor) section.append(el("p", "muted small", "More rows follow: page through them with the relation's route under Actions."));
  }
}

/**
 * A form from `schema` with its submit button and a result box under it, appended to `box`; on
 * submit, the input is read and handed to `onInput`, or its error shown instead.
 */
function callForm(box, schema, formOptions, sendText, className, onInput) {
  const fields = schemaForm(schema ?? {}, formOptions);
  const form = el("form", `call-form ${className}`.trim());
  const send = el("button", "", sendText);
  send.type = "submit";
  form.append(fields.element, send);
  const result = el("div", "result");
  box.append(form, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = fields.read();
    if (!input.ok) result.replaceChildren(el("p", "error", input.error));
    else void onInput(input);
  });
  return { send, result };
}

/** The update form, filled with the row's values; only what the person changed is sent. */
function openEdit(box, type, endpoint, row) {
  box.replaceChildren(el("h3", "", `Edit ${type.name} ${row.id}`));
  const { send, result } = callForm(box, endpoint.inputSchema, { idPrefix: "edit", omit: ["id"], initial: row }, `Save (PATCH ${endpoint.path.replace(":id", String(row.id))})`, "edit-form", async (input) => {
    const changed = Object.fromEntries(Object.entries(input.value).filter(([k, val]) => JSON.stringify(val) !== JSON.stringify(row[k])));
    if (Object.keys(changed).length === 0) {
      result.replaceChildren(el("p", "muted", "Nothing changed."));
      return;
    }
    send.disabled = true;
    const req = restRequest(endpoint, { id: row.id, ...changed });
    const ex = await exchange(req.method, req.path, { body: req.body });
    send.disabled = false;
    result.replaceChildren(renderExchange(ex));
    if (ex.status === 200) {
      // Show the stored row, with the exchange kept in view under it.
      await renderRow(type, String(row.id));
      const box2 = view().querySelector(".call-box");
      box2.replaceChildren(el("p", "good", `Saved ${type.name} ${row.id}.`), renderExchange(ex));
      box2.scrollIntoView({ block: "nearest" });
    } else result.scrollIntoView({ block: "nearest" });
  });
  box.scrollIntoView({ block: "nearest" });
}

function openDelete(box, type, endpoint, row) {
  box.replaceChildren(el("h3", "", `Delete ${type.name} ${row.id}?`));
  box.append(el("p", "muted", `DELETE ${endpoint.path.replace(":id", String(row.id))} removes the row${type.fields.some((f) => targetOf(f)?.kind === "multi") ? " and its links" : ""}.`));
  const result = el("div", "result");
  const confirm = button(`Delete ${type.name} ${row.id}`, async () => {
    confirm.disabled = true;
    const ex = await exchange("DELETE", endpoint.path.replace(":id", encodeURIComponent(String(row.id))));
    result.replaceChildren(renderExchange(ex));
    if (ex.status === 204) {
      view().querySelector(".record")?.classList.add("gone");
      box.replaceChildren(el("p", "good", `Deleted ${type.name} ${row.id}.`), result);
      const back = el("a", "", `Back to the ${type.name} rows`);
      back.href = `#type=${encodeURIComponent(type.name)}`;
      box.append(back);
    } else confirm.disabled = false;
    result.scrollIntoView({ block: "nearest" });
  }, "danger");
  box.append(confirm, button("Cancel", () => box.replaceChildren(), "secondary"), result);
  box.scrollIntoView({ block: "nearest" });
}

/** The call form for a REST endpoint or an MCP tool, with its exchange under it. */
function openCall(box, target, afterWrite = () => {}, initial = undefined) {
  box.replaceChildren();
  const isRest = target.kind === "rest";
  const schema = isRest ? target.endpoint.inputSchema : target.tool.inputSchema;
  const heading = el("h3", "", isRest ? `${target.endpoint.method} ${target.endpoint.path}` : `MCP tool ${target.tool.name}`);
  box.append(heading);
  // A REST endpoint calls the operation its MCP tool of the same name describes, when exposed there.
  const description = isRest ? (model.mcp.tools.find((t) => t.name === target.endpoint.op)?.description ?? `Operation ${target.endpoint.op}.`) : target.tool.description;
  if (description) box.append(el("p", "muted pre-line", description));
  if (isRest && target.endpoint.op === "subscribe") {
    // A stream never completes, so a call form would wait forever (spec/live.md).
    box.append(el("p", "muted", `A live stream of server-sent events: one per committed change. Open it with curl -N ${location.origin}${target.endpoint.path} or an EventSource.`));
    return;
  }
  if (isRest && !schema) {
    box.append(el("p", "muted", "This route is declared but answers 501 in this version of wo."));
  }
  const formOptions = { idPrefix: isRest ? "rest" : "mcp", omit: isRest && target.endpoint.op.endsWith("_list") ? ["cursor"] : [], ...(initial ? { initial } : {}) };
  const { send, result } = callForm(box, schema, formOptions, isRest ? `Send ${target.endpoint.method}` : "Call tool", "", async (input) => {
    send.disabled = true;
    let ex;
    if (isRest) {
      const req = restRequest(target.endpoint, input.value);
      if (req.error) {
        send.disabled = false;
        result.replaceChildren(el("p", "error", req.error));
        return;
      }
      ex = await exchange(req.method, req.path, req.body !== undefined ? { body: req.body } : {});
    } else {
      ex = await callTool(target.tool.name, input.value);
    }
    send.disabled = false;
    result.replaceChildren(renderExchange(ex));
    result.scrollIntoView({ block: "nearest" });
    const wrote = isRest ? target.endpoint.method !== "GET" : !target.tool.annotations?.readOnlyHint;
    if (wrote && !ex.error && ex.status < 400) afterWrite();
  });
  box.scrollIntoView({ block: "nearest" });
}

function renderTool(tool) {
  const v = view();
  v.replaceChildren();
  v.append(el("h2", "mono", tool.name));
  if (tool.title) v.append(el("p", "", tool.title));
  const hints = Object.entries(tool.annotations ?? {}).filter(([k, val]) => k.endsWith("Hint") && val === true).map(([k]) => k.replace(/Hint$/, ""));
  if (hints.length) {
    const tags = el("p");
    for (const h of hints) tags.append(el("span", "tag", h));
    v.append(tags);
  }
  const schema = el("details", "raw");
  schema.append(el("summary", "", "Input schema"), el("pre", "http", JSON.stringify(tool.inputSchema, null, 2)));
  v.append(schema);
  const box = el("div", "call-box");
  v.append(box);
  openCall(box, { kind: "mcp", tool });
}

// ---- Navigation, token, start --------------------------------------------------------------

function route() {
  if (!model) return;
  const params = new URLSearchParams(location.hash.slice(1));
  const typeHash = params.get("type") ? `#type=${encodeURIComponent(params.get("type"))}` : location.hash;
  for (const a of document.querySelectorAll(".nav-list a")) a.classList.toggle("active", a.getAttribute("href") === typeHash);
  const type = model.types.find((t) => t.name === params.get("type"));
  const tool = model.mcp.tools.find((t) => t.name === params.get("tool"));
  if (type && params.get("id")) void renderRow(type, params.get("id"));
  else if (type) renderType(type);
  else if (tool) renderTool(tool);
  else renderOverview();
}

function renderNav() {
  $("app-name").textContent = model.app.name;
  $("app-version").textContent = model.app.version;
  $("app-description").textContent = model.app.description ?? "";
  $("app-description").title = model.app.description ?? "";
  document.title = `${model.app.name} · wo explorer`;
  $("whoami").textContent = callerText(model.caller);
  $("whoami").title = model.caller ? `how: ${model.caller.via}${model.caller.user !== null ? `, $session.user ${model.caller.user}` : ""}` : "";
  const types = $("type-list");
  types.replaceChildren();
  for (const t of model.types) {
    const li = el("li");
    const a = el("a", "", t.name);
    a.href = `#type=${encodeURIComponent(t.name)}`;
    li.append(a);
    types.append(li);
  }
  const tools = $("tool-list");
  tools.replaceChildren();
  if (model.mcp.tools.length === 0) tools.append(el("li", "muted", "none exposed"));
  for (const t of model.mcp.tools) {
    const li = el("li");
    const a = el("a", "mono", t.name);
    a.href = `#tool=${encodeURIComponent(t.name)}`;
    li.append(a);
    tools.append(li);
  }
}

/** Who the server takes this tab for, from the token it sent: `as owner`, `as claude · agent`. */
function callerText(caller) {
  if (!caller) return "";
  return `as ${caller.name}${caller.role ? ` · ${caller.role}` : ""}`;
}

function showTokenForm(message) {
  $("token-form").hidden = false;
  if (message) $("token-form").querySelector("label").textContent = `${message} It is kept in this tab only (sessionStorage).`;
  $("token-input").focus();
}

async function start() {
  setStatus("Loading…");
  const ex = await exchange("GET", "/explorer/app.json");
  if (ex.status !== 200 || !ex.json) {
    setStatus(ex.status === 401 ? "Enter the bearer token to see this app." : `Could not load the app model: ${ex.json?.detail ?? ex.error ?? `HTTP ${ex.status}`}`);
    return;
  }
  model = ex.json;
  mcp.ready = false;
  setStatus("");
  renderNav();
  route();
}

document.addEventListener("DOMContentLoaded", () => {
  $("token-button").addEventListener("click", () => {
    const form = $("token-form");
    form.hidden = !form.hidden;
  });
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    token = $("token-input").value.trim();
    if (token) sessionStorage.setItem(tokenKey, token);
    else sessionStorage.removeItem(tokenKey);
    $("token-input").value = "";
    $("token-form").hidden = true;
    void start();
  });
  $("token-clear").addEventListener("click", () => {
    token = "";
    sessionStorage.removeItem(tokenKey);
    $("token-input").value = "";
  });
  window.addEventListener("hashchange", route);
  void start();
});
