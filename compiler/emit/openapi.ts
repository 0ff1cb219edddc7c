// OpenAPI 3.1 for the REST API: one path item per route (routes.ts), request and response
// schemas from json-schema.ts (rows shared through `components.schemas`), list filters as
// query parameters, and RFC 9457 problem-details error responses. OpenAPI 3.1 schema objects
// are JSON Schema 2020-12, so the operation schemas are used as they are.
import {
  inCreateInput,
  inUpdateInput,
  isRestOnlyOp,
  type Catalog,
  type CatalogField,
  type CatalogType,
} from "../catalog.js";
import { emittedEvents, enqueuedJobs, eventsRoute, jobsRoute } from "../../model/app.js";
import { toolName } from "../../model/naming.js";
import { listEqualityFields, listFilterFields, searchControlName } from "../../model/list-filters.js";
import { SchemaBuilder, compareText, operationSchemas, sortKeys, type JsonSchema } from "./json-schema.js";
import { idSchema } from "../../model/scalars.js";
import { operationTable, runtimeRoutes } from "./operation-table.js";
import { methodOf } from "./exposed-ops.js";
import { maxErrorDetails } from "../../model/errors.js";
import { operationDescription, relationTitle, toolTitle } from "./tools.js";
import { allRelationOps, type RelationOp as ModelRelationOp } from "../../model/relations.js";
import type { OperationEntry } from "../../model/build-contract.js";
import type { Block } from "../ast.js";

/** A relation op of the compiler's catalog (method bodies as checked AST). */
type RelationOp = ModelRelationOp<Block>;
import { canHoldRef, referableTables } from "./ref-checks.js";
import { blockHas, usesArithmetic, writeStatements } from "./method-body.js";

type ErrorStatus = "400" | "401" | "403" | "404" | "409" | "413" | "415" | "422" | "501" | "503";

/** Every error is a problem-details body; some statuses also carry a header the client acts on. */
const errorResponses: Record<ErrorStatus, { name: string; description: string; headers?: Record<string, object> }> = {
  "400": {
    name: "BadRequest",
    description:
      "Malformed request: invalid JSON, an invalid id, a bad filter, limit or cursor, or input that does not match the schema.",
  },
  "401": {
    name: "Unauthorized",
    description: "The server requires a bearer token and the request lacks it or carries another.",
    headers: {
      "WWW-Authenticate": { description: "The scheme to use: Bearer.", required: true, schema: { type: "string" } },
    },
  },
  "403": { name: "Forbidden", description: "A Host or Origin the server does not answer to; nothing ran." },
  "404": { name: "NotFound", description: "No row with that id." },
  "409": {
    name: "Conflict",
    description: "A unique value is taken, the row is still referenced, or a method aborted.",
  },
  "413": { name: "PayloadTooLarge", description: "The request body exceeds the server's size limit." },
  "415": { name: "UnsupportedMediaType", description: "The request body is not application/json." },
  "422": {
    name: "UnprocessableContent",
    description: "The input names rows that do not exist (a dangling reference).",
  },
  "501": { name: "NotImplemented", description: "Declared but not served by this runtime yet." },
  "503": {
    name: "ServiceUnavailable",
    description:
      "Busy (more calls running and waiting than the server allows, shutting down, or the database locked by another program), the database unavailable, or, for a write, storage full; nothing was done.",
    headers: {
      "Retry-After": {
        description: "Seconds to wait before trying again; sent when busy or when the database is unavailable.",
        schema: { type: "string" },
      },
    },
  },
};

/**
 * The worker API of jobs (spec/rest.md, "Jobs"): list, claim, complete and fail, for the owner
 * and `[jobs] worker_roles`; its errors are the usual problem details.
 */
function jobPaths(names: string[]): Record<string, object> {
  const job = {
    type: "object",
    required: ["id", "name", "args", "status", "attempts", "runAt", "claimedUntil", "lastError", "type", "rowId"],
    properties: {
      id: { type: "integer" },
      name: { type: "string", enum: names },
      args: { type: "object" },
      status: { type: "string", enum: ["pending", "running", "done", "failed"] },
      attempts: { type: "integer" },
      runAt: { type: "string", format: "date-time" },
      claimedUntil: { type: ["string", "null"], format: "date-time" },
      lastError: { type: ["string", "null"] },
      type: { type: "string" },
      rowId: { type: "integer" },
      createdAt: { type: "string", format: "date-time" },
      updatedAt: { type: "string", format: "date-time" },
    },
  };
  const ref = (status: ErrorStatus) => ({ $ref: `#/components/responses/${errorResponses[status].name}` });
  const errors = { "400": ref("400"), "401": ref("401"), "403": ref("403") };
  const id = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
  const jsonBody = (schema: object) => ({ required: true, content: { "application/json": { schema } } });
  const theJob = { description: "The job after the call.", content: { "application/json": { schema: job } } };
  return {
    [jobsRoute]: {
      get: {
        operationId: "jobs_list",
        summary: "The newest 100 jobs of the outbox",
        parameters: [
          { name: "status", in: "query", required: false, schema: job.properties.status },
          { name: "name", in: "query", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "The jobs, newest first.",
            content: {
              "application/json": {
                schema: { type: "object", required: ["items"], properties: { items: { type: "array", items: job } } },
              },
            },
          },
          ...errors,
        },
      },
    },
    [`${jobsRoute}/claim`]: {
      post: {
        operationId: "jobs_claim",
        summary: "Claim the oldest due job no fn of the app runs",
        requestBody: jsonBody({
          type: "object",
          additionalProperties: false,
          properties: {
            name: { type: "string" },
            lease_seconds: { type: "integer", minimum: 1, maximum: 86400 },
          },
        }),
        responses: { "200": theJob, "204": { description: "No job is due." }, ...errors },
      },
    },
    [`${jobsRoute}/{id}/complete`]: {
      post: {
        operationId: "jobs_complete",
        summary: "Mark a claimed job done",
        parameters: [id],
        requestBody: jsonBody({ type: "object", additionalProperties: false }),
        responses: { "200": theJob, ...errors, "404": ref("404"), "409": ref("409") },
      },
    },
    [`${jobsRoute}/{id}/fail`]: {
      post: {
        operationId: "jobs_fail",
        summary: "Record that a claimed job failed: retried after a backoff, or failed after max_attempts",
        parameters: [id],
        requestBody: jsonBody({
          type: "object",
          additionalProperties: false,
          required: ["error"],
          properties: { error: { type: "string", minLength: 1, maxLength: 2000 } },
        }),
        responses: { "200": theJob, ...errors, "404": ref("404"), "409": ref("409") },
      },
    },
  };
}

/** What any request may meet before its route runs (spec/rest.md: Host and Origin, then the token). */
const guardErrors: ErrorStatus[] = ["401", "403"];
/** What a body is refused for before the operation runs. */
const bodyErrors: ErrorStatus[] = ["400", "413", "415"];

export function emitOpenApi(
  catalog: Catalog,
  b = new SchemaBuilder(catalog),
  table: readonly OperationEntry[] = operationTable(catalog, b),
): object {
  const schemas: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, object>> = {};
  const usedIds = new Set<string>();
  const typeNamed = new Map(catalog.types.map((t) => [t.name, t]));
  const referable = referableTables(catalog);
  // Every route with the operation it runs (none for subscribe and me), in the manifest's order.
  const routes = [
    ...table.flatMap((entry) =>
      entry.routes.map((r) => ({
        method: r.method,
        path: r.path,
        name: entry.name,
        type: entry.type,
        op: entry.op,
        entry,
      })),
    ),
    ...runtimeRoutes(catalog).map((r) => ({
      method: r.method,
      path: r.path,
      name: toolName(r.type, r.op),
      type: r.type,
      op: r.op,
      entry: undefined,
    })),
  ].sort((x, y) => compareText(x.path, y.path) || compareText(x.method, y.method));

  for (const route of routes) {
    const type = typeNamed.get(route.type)!;
    const op = route.op;
    const rowRef = { $ref: `#/components/schemas/${type.name}` };
    schemas[type.name] = b.row(type);
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
    // One type may serve the same op on two `service rest` paths; operationIds must stay unique.
    let operationId = route.name;
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${route.name}_${n}`;
    usedIds.add(operationId);

    const method = methodOf(type, op);
    const relation = route.entry?.relation ? allRelationOps(catalog, type).find((r) => r.op === op) : undefined;
    const operation: Record<string, unknown> = {
      operationId,
      summary: relation ? relationTitle(type, relation) : toolTitle(type, op),
      ...(isRestOnlyOp(op) || relation ? {} : { description: operationDescription(catalog, type, op, method, "rest") }),
      tags: [type.name],
    };
    const responses: Record<string, unknown> = {};
    const errors: ErrorStatus[] = [...guardErrors];
    // Statuses an operation can meet only when the type allows them: a write of ref-holding
    // fields may name a missing row; a @unique field may be taken; a referenced row stays.
    const rowWrites = (fields: CatalogField[]): ErrorStatus[] => [
      ...(canHoldRef(
        catalog,
        type,
        fields.map((f) => f.name),
      )
        ? ["422" as const]
        : []),
      ...(type.fields.some((f) => f.isUnique) ? ["409" as const] : []),
    ];
    const hasId = path.includes("{id}");
    const parameters: object[] = hasId
      ? [{ name: "id", in: "path", required: true, description: `Id of the ${type.name}.`, schema: { ...idSchema } }]
      : [];
    const io = relation ? undefined : operationSchemas(b, type, op);

    if (relation) {
      const rio = b.relation(type, relation);
      const input = rio.input.properties as Record<string, JsonSchema>;
      if (relation.access === "read") {
        parameters.push({ name: "limit", in: "query", required: false, schema: input.limit });
        parameters.push({ name: "cursor", in: "query", required: false, schema: input.cursor });
        responses["200"] = json(`One page of ${relation.relation.field.name}.`, rio.output);
        errors.push("400", "404", "503");
      } else {
        const column = (relation.relation.path as { targetColumn: string }).targetColumn;
        parameters.push({
          name: column,
          in: "path",
          required: true,
          description: `Id of the ${relation.relation.target.name}.`,
          schema: input[column],
        });
        if (relation.access === "add") {
          const { id: _id, [column]: _target, ...bodySchema } = input;
          const required = ((rio.input.required as string[]) ?? []).filter((r) => r !== "id" && r !== column);
          operation.requestBody = {
            required: required.length > 0,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: bodySchema,
                  ...(required.length ? { required } : {}),
                  additionalProperties: false,
                },
              },
            },
          };
          responses["201"] = json("The new link.", (rio.output.properties as Record<string, JsonSchema>).link!);
          responses["200"] = json(
            "The rows were linked already: the existing link, unchanged.",
            (rio.output.properties as Record<string, JsonSchema>).link!,
          );
          // The target may not exist (422); a @unique field of the link's own may be taken (409).
          const link = (relation.relation.path as Extract<RelationOp["relation"]["path"], { kind: "link" }>).link;
          errors.push(
            ...bodyErrors,
            "404",
            "422",
            "503",
            ...(link.fields.some((f) => f.isUnique) ? ["409" as const] : []),
          );
        } else {
          const link = (relation.relation.path as Extract<RelationOp["relation"]["path"], { kind: "link" }>).link;
          responses["204"] = { description: "Unlinked (or they were not linked)." };
          errors.push("400", "404", "422", "503", ...(referable.has(link.table) ? ["409" as const] : []));
        }
      }
      for (const status of [...new Set(errors)].sort()) {
        responses[status] = { $ref: `#/components/responses/${errorResponses[status].name}` };
      }
      operation.parameters = parameters;
      operation.responses = responses;
      (paths[path] ??= {})[route.method.toLowerCase()] = operation;
      continue;
    }

    switch (op) {
      case "list": {
        parameters.push(...listParameters(type, io!.input));
        const page = {
          ...io!.output,
          properties: { ...(io!.output.properties as object), items: { type: "array", items: rowRef } },
        };
        responses["200"] = json("One page of rows, ascending id.", page);
        errors.push("400", "503");
        break;
      }
      case "get":
        responses["200"] = json(`The ${type.name}.`, rowRef);
        errors.push("400", "404", "503");
        break;
      case "create":
        operation.requestBody = body(schemas, `${route.name}_body`, io!.input);
        responses["201"] = {
          ...json(`The created ${type.name}.`, rowRef),
          headers: { Location: { description: "URL of the new row.", required: true, schema: { type: "string" } } },
        };
        errors.push(...bodyErrors, ...rowWrites(type.fields.filter(inCreateInput)), "503");
        break;
      case "update":
        operation.requestBody = body(schemas, `${route.name}_body`, withoutId(io!.input));
        responses["200"] = json(`The updated ${type.name}.`, rowRef);
        errors.push(...bodyErrors, ...rowWrites(type.fields.filter(inUpdateInput)), "404", "503");
        break;
      case "delete":
        responses["204"] = { description: "Deleted." };
        errors.push("400", "404", "503", ...(referable.has(type.table) ? ["409" as const] : []));
        break;
      case "subscribe":
        // A server-sent-events stream (spec/live.md), not a JSON body; filters as on list.
        responses["200"] = {
          description: `Server-sent events, one per committed create, update or delete of a ${type.name}: \`event:\` the op, \`id:\` its change sequence number (send it back as Last-Event-ID to resume), \`data:\` { op, id, row }. A \`reset\` event means changes were missed.`,
          content: { "text/event-stream": { schema: { type: "string" } } },
        };
        errors.push("400");
        break;
      case "me":
        // 401 (among the guard's) for an anonymous caller; 404 when the caller has no row.
        responses["200"] = json(`The caller's own ${type.name}: the one whose id is $session.user.`, rowRef);
        errors.push("404", "503");
        break;
      default: {
        if (!io || !method) break;
        operation.requestBody = body(schemas, `${route.name}_body`, withoutId(io.input));
        responses["200"] = json("The method's return value (null when it returns nothing).", io.output);
        // A write may name a missing row (422); a write, an assert or integer arithmetic may fail (409).
        const writes = blockHas(method.body, writeStatements, catalog);
        const conflicts = writes || blockHas(method.body, ["AssertStmt"], catalog) || usesArithmetic(method.body);
        errors.push(
          ...bodyErrors,
          "404",
          "503",
          ...(writes ? ["422" as const] : []),
          ...(conflicts ? ["409" as const] : []),
        );
      }
    }
    for (const status of [...new Set(errors)].sort()) {
      responses[status] = { $ref: `#/components/responses/${errorResponses[status].name}` };
    }
    if (parameters.length > 0) operation.parameters = parameters;
    operation.responses = responses;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }

  const events = emittedEvents(catalog);
  if (events.length > 0) {
    // The app-wide stream of `do emit` events (spec/rest.md, "Application events").
    paths[eventsRoute] = {
      get: {
        operationId: "events",
        summary: "Application events: a server-sent-events stream",
        parameters: [
          {
            name: "name",
            in: "query",
            required: false,
            description: "Only events of these names (repeat the parameter for several).",
            schema: { type: "array", items: { type: "string", enum: events } },
            style: "form",
            explode: true,
          },
          {
            name: "Last-Event-ID",
            in: "header",
            required: false,
            description: "Resume after this event's id (replayed from the change log).",
            schema: { type: "string", pattern: "^[0-9]+$" },
          },
        ],
        responses: {
          "200": {
            description:
              "Server-sent events, one per committed emitted event the caller may read the row of: `event:` its name, `id:` its change sequence number (send it back as Last-Event-ID to resume), `data:` { name, type, id, args, at }. A `reset` event means events were missed.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          "400": { $ref: `#/components/responses/${errorResponses["400"].name}` },
        },
      },
    };
  }

  if (enqueuedJobs(catalog).length > 0) Object.assign(paths, jobPaths(enqueuedJobs(catalog)));

  const responses: Record<string, object> = {};
  for (const status of Object.keys(errorResponses).sort() as ErrorStatus[]) {
    const r = errorResponses[status];
    responses[r.name] = {
      description: r.description,
      ...(r.headers ? { headers: r.headers } : {}),
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/wo.Problem" } } },
    };
  }
  const info: Record<string, string> = { title: catalog.app.name, version: catalog.app.version };
  if (catalog.app.description) info.description = catalog.app.description;
  const components: Record<string, unknown> = {
    schemas: { ...sortKeys(schemas), "wo.Problem": problemSchema },
    responses,
  };
  if (!catalog.config.tokenEnv) return { openapi: "3.1.0", info, paths, components };
  // `[server] token_env`: every /api route needs the bearer token (spec/rest.md "Limits and auth").
  components.securitySchemes = {
    bearer: {
      type: "http",
      scheme: "bearer",
      description: `The token the server reads from the environment variable ${catalog.config.tokenEnv}.`,
    },
  };
  return { openapi: "3.1.0", info, paths, components, security: [{ bearer: [] }] };
}

/**
 * The list query (spec/rest.md): `field=value` per equality field, `field[op]=value` per
 * operator a field takes, then sort, count, limit and cursor, with the input schema's parts.
 */
function listParameters(type: CatalogType, input: JsonSchema): object[] {
  const properties = input.properties as Record<string, JsonSchema>;
  const where = (properties.where as JsonSchema).properties as Record<string, JsonSchema>;
  const query = (name: string, schema: JsonSchema) => {
    const { description, ...rest } = schema;
    return { name, in: "query", required: false, ...(description ? { description } : {}), schema: rest };
  };
  // A searched type's `q` is the search (its `query`); a field named `q` filters as `q[eq]` there.
  const search = properties[searchControlName];
  const parameters = listEqualityFields(type)
    .filter((f) => !(search && f.name === "q"))
    .map((f) => query(f.name, properties[f.name]!));
  if (search) parameters.unshift(query("q", search));
  for (const f of listFilterFields(type)) {
    for (const [op, operand] of Object.entries(where[f.name]!.properties as Record<string, JsonSchema>)) {
      // `in` arrives as one comma-separated text (a `\` escapes a comma in a value).
      const schema =
        op === "in"
          ? {
              type: "string",
              description: `${String(operand.description)} Comma-separated; write \\, for a comma inside a value.`,
            }
          : operand;
      parameters.push(query(`${f.name}[${op}]`, schema));
    }
  }
  for (const control of ["sort", "count", "limit", "cursor"]) parameters.push(query(control, properties[control]!));
  return parameters;
}

/** RFC 9457 problem details; the runtime may add members. Named `wo.Problem`: a dot cannot occur in a type or tool name, so it never clashes with one. */
const problemSchema: JsonSchema = {
  type: "object",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    errors: {
      type: "array",
      description: `At most ${maxErrorDetails} entries; \`truncated\` counts the problems not listed.`,
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
        required: ["path", "message"],
      },
    },
    truncated: { type: "integer", minimum: 1, description: "How many more problems were found than errors lists." },
  },
  required: ["type", "title", "status", "detail"],
};

function json(description: string, schema: object): object {
  return { description, content: { "application/json": { schema } } };
}

function body(schemas: Record<string, JsonSchema>, name: string, schema: JsonSchema): object {
  schemas[name] = schema;
  return { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } };
}

/** REST carries the id in the path, so request bodies are the input schema minus `id`. */
function withoutId(input: JsonSchema): JsonSchema {
  const { id: _id, ...properties } = input.properties as Record<string, JsonSchema>;
  const required = ((input.required as string[] | undefined) ?? []).filter((r) => r !== "id");
  const out: JsonSchema = { ...input, properties };
  if (required.length > 0) out.required = required;
  else delete out.required;
  return out;
}
