// The checker types a trigger's condition and actions like a method body of its type
// (spec/language.md, "Triggers"): each mistake is an error at its file:line:col, and the
// triggers that run leave no "not executed" warning behind.

import { describe, expect, it } from "vitest";
import { checkApp } from "../../compiler/index.js";
import { appsDeletedAfterEach, cursorPosition } from "../check/app-fixture.js";

const writeApp = appsDeletedAfterEach();

const post = (trigger: string) =>
  `fn note(p: Post) { }\ntype Post {\n  title: Text\n  status: Draft | Published = Draft\n  published_at: Timestamp?\n  ${trigger}\n}\n`;

const errors: [string, string, string][] = [
  ["WO5003", "a set of an unknown field", post("on update do set self.┆publshed_at = now()")],
  ["WO5014", "a set of a value of the wrong type", post("on update do set self.published_at = ┆42")],
  ["WO5001", "old in an on create trigger", post('on create when ┆old.status == Draft do set self.title = "x"')],
  ["WO5003", "an unknown field in the condition", post("on update when new.┆stat == Published do call note(self)")],
  ["WO2031", "a set in an on delete trigger", post('on delete do ┆set self.title = "gone"')],
  ["WO5004", "a call of an unknown fn", post("on update do call ┆notify(self)")],
  ["WO2032", "the id of a row not stored yet", post('on create when ┆self.id > 3 do set self.title = "x"')],
  ["WO1003", "a set that names no field", post("on update do set ┆now() = 1")],
  ["WO2060", "an event name that is no SSE event name", post('on create do emit ┆"1 bad"(self)')],
  ["WO2065", "a job name with a space", post('on create do enqueue ┆"send mail" with { id: self.id }')],
  ["WO2065", "a job field given twice", post('on update do enqueue ┆"mail" with { a: 1, a: 2 }')],
  [
    "WO2066",
    "a job's fields that are not its fn's parameters",
    `fn send_mail(to: Text) { }\n${post('on update do enqueue ┆"send-mail" with { too: self.title }')}`,
  ],
  [
    "WO5006",
    "a job field of the wrong type for its fn",
    `fn send_mail(to: Text) { }\n${post('on update do enqueue "send-mail" with { to: ┆42 }')}`,
  ],
  ["WO5003", "an unknown field in a job's field", post('on update do enqueue "mail" with { to: self.┆titel }')],
  [
    "WO3003",
    "a type's path under the jobs' worker API",
    'type A {\n  x: Int\n  service rest ┆"/api/_jobs/a" expose list\n}\n',
  ],
  ["WO1003", "enqueue without with", post('on update do enqueue "mail" ┆{ a: 1 }')],
];

describe("trigger checks", () => {
  it.each(errors)("%s: %s", async (code, _name, text) => {
    const files = { "app.wo": text };
    const dir = writeApp(files);
    const result = await checkApp(dir);
    const d = result.diagnostics.find((x) => x.code === code);
    expect(d, JSON.stringify(result.diagnostics.map((x) => `${x.code} ${x.message}`))).toBeDefined();
    expect(d!.severity).toBe("error");
    expect(`${d!.span.file.slice(dir.length + 1)}:${d!.span.line}:${d!.span.col}`).toBe(cursorPosition(files));
    expect(result.catalog).toBeUndefined();
  });

  it("a trigger that runs is checked clean, with no 'not executed' warning", async () => {
    const dir = writeApp({
      "app.wo": post(
        "on update when old.status != Published and new.status == Published do set self.published_at = now()",
      ),
    });
    const result = await checkApp(dir);
    expect(result.diagnostics).toEqual([]);
    expect(result.catalog!.types.find((t) => t.name === "Post")!.triggers).toHaveLength(1);
  });

  it("an enqueue runs, with or without a fn of its name: no warning", async () => {
    const dir = writeApp({
      "app.wo": `fn send_mail(to: Text, post_id: Int) { }\n${post('on update do enqueue "send-mail" with { post_id: self.id, to: self.title }\n  on delete do enqueue "gone" with { id: self.id }')}`,
    });
    const result = await checkApp(dir);
    expect(result.diagnostics).toEqual([]);
    const triggers = result.catalog!.types.find((t) => t.name === "Post")!.triggers!;
    expect(triggers.map((t) => t.enqueues)).toEqual([
      [{ name: "send-mail", fields: ["post_id", "to"] }],
      [{ name: "gone", fields: ["id"] }],
    ]);
  });
});
