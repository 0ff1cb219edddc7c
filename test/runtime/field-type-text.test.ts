// fieldTypeText: one wording of a type for the MCP schema resource (catalog FieldType) and for
// migration messages (stored TypeDesc), as it is written in `.wo`.
import { describe, expect, it } from "vitest";
import type { CatalogField, FieldType } from "../../compiler/catalog.js";
import { fieldTypeText } from "../../model/field-type-text.js";
import type { TypeDesc } from "../../model/type-desc.js";

const field = (name: string, type: FieldType, isOptional = false) => ({ name, type, isOptional }) as CatalogField;

describe("fieldTypeText", () => {
  it("words a catalog type as .wo writes it", () => {
    expect(fieldTypeText({ kind: "scalar", scalar: "Int" })).toBe("Int");
    expect(fieldTypeText({ kind: "union", variants: ["Draft", "Live"] })).toBe("Draft | Live");
    expect(fieldTypeText({ kind: "ref", target: "Author" })).toBe("ref Author");
    expect(fieldTypeText({ kind: "multi", target: "Tag" })).toBe("multi Tag");
    expect(fieldTypeText({ kind: "backlink", target: "Post", field: "author" })).toBe("backlink Post.author");
    expect(fieldTypeText({ kind: "embedded", type: "Address" })).toBe("Address");
    expect(fieldTypeText({ kind: "array", element: { kind: "ref", target: "Tag" } })).toBe("[ref Tag]");
    const struct: FieldType = {
      kind: "struct",
      fields: [
        field("title", { kind: "scalar", scalar: "Text" }),
        field("note", { kind: "scalar", scalar: "Text" }, true),
      ],
    };
    expect(fieldTypeText(struct)).toBe("{ title: Text, note: Text? }");
  });

  it("words a stored shape the same way; refs name their table", () => {
    const desc: TypeDesc = {
      kind: "struct",
      fields: [
        { name: "qty", type: { kind: "scalar", scalar: "Int" }, isOptional: false },
        { name: "by", type: { kind: "array", element: { kind: "ref", table: "authors" } }, isOptional: true },
        { name: "raw", type: { kind: "json" }, isOptional: false },
      ],
    };
    expect(fieldTypeText(desc)).toBe("{ qty: Int, by: [ref authors]?, raw: JSON }");
  });
});
