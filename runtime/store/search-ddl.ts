// A type's full-text index on SQLite (spec/storage.md, "Full-text search"): an FTS5 table with
// external content (the type's own table, so the text is stored once), kept by three triggers
// on that table. Every write to the table goes through SQL, so the triggers keep the index in
// the writing transaction, whoever writes: REST, MCP, a method, a migration's UPDATE.

import type { SearchShape } from "../../model/storage-shape.js";
import { quoteId } from "./ddl.js";

/** The triggers' names, which a migration drops with the index. */
function triggerNames(search: SearchShape): string[] {
  return ["insert", "delete", "update"].map((event) => `${search.sqlName}__${event}`);
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The statements that build the index over `table` and fill it from the rows stored. The
 * tokenizer folds case and diacritics (`café` finds `Cafe`), as the queries' words expect.
 */
export function createSearchSql(table: string, search: SearchShape): string[] {
  const fts = quoteId(search.sqlName);
  const t = quoteId(table);
  const cols = search.columns.map(quoteId);
  const list = cols.join(", ");
  const of = (row: "new" | "old") => cols.map((c) => `${row}.${c}`).join(", ");
  const [insert, del, update] = triggerNames(search).map(quoteId);
  const removeOld = `INSERT INTO ${fts} (${fts}, rowid, ${list}) VALUES ('delete', old."id", ${of("old")});`;
  const addNew = `INSERT INTO ${fts} (rowid, ${list}) VALUES (new."id", ${of("new")});`;
  return [
    `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content=${literal(table)}, content_rowid='id', tokenize='unicode61 remove_diacritics 2')`,
    `CREATE TRIGGER ${insert} AFTER INSERT ON ${t} BEGIN ${addNew} END`,
    `CREATE TRIGGER ${del} AFTER DELETE ON ${t} BEGIN ${removeOld} END`,
    `CREATE TRIGGER ${update} AFTER UPDATE OF ${list} ON ${t} BEGIN ${removeOld} ${addNew} END`,
    `INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`,
  ];
}

export function dropSearchSql(search: SearchShape): string[] {
  return [
    ...triggerNames(search).map((name) => `DROP TRIGGER IF EXISTS ${quoteId(name)}`),
    `DROP TABLE IF EXISTS ${quoteId(search.sqlName)}`,
  ];
}
