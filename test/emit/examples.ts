// Example values generated from the catalog (not from the schemas under test): a valid value
// for every field type and, per field, values that must be rejected.
import type { Catalog, CatalogField, CatalogType, FieldType } from "../../compiler/catalog.js";
import type { ScalarName } from "../../model/scalars.js";

const validScalars: Record<ScalarName, unknown> = {
  Id: 7,
  Int: -3,
  Float: 1.5,
  Text: "some text",
  Bool: true,
  Timestamp: "2024-05-01T10:00:00.000Z",
  Url: "https://example.com/a?b=c",
  Email: "ada@example.com",
  Markdown: "# Title\n\nbody",
  Money: 4999,
  SKU: "AB-1200",
  Slug: "hello-world-2",
};

/** Values of the wrong type or shape for each scalar (each must be rejected). */
const invalidScalars: Record<ScalarName, unknown[]> = {
  Id: [0, -1, 1.5, "7"],
  Int: [1.5, "3", true],
  Float: ["1.5", false],
  Text: [42, true, {}],
  Bool: ["true", 1],
  Timestamp: ["yesterday", "2024-05-01", 1714557600],
  Url: ["not a url", 3],
  Email: ["not-an-email", 3],
  Markdown: [3, []],
  Money: [49.99, "4999"],
  SKU: ["has space", "-lead", 3],
  Slug: ["Hello-World", "double--hyphen", "trailing-", 3],
};

export function validValue(catalog: Catalog, t: FieldType): unknown {
  switch (t.kind) {
    case "scalar":
      return validScalars[t.scalar];
    case "union":
      return t.variants[t.variants.length - 1];
    case "ref":
      return 1;
    case "array":
      return [validValue(catalog, t.element)];
    case "struct":
      return validObject(catalog, t.fields);
    case "embedded": {
      const target = catalog.types.find((x) => x.name === t.type)!;
      return validObject(
        catalog,
        target.fields.filter((f) => f.name !== "id"),
      );
    }
    default:
      return undefined;
  }
}

export function invalidValues(t: FieldType): unknown[] {
  switch (t.kind) {
    case "scalar":
      return invalidScalars[t.scalar];
    case "union":
      return ["NotAVariant", 1];
    case "ref":
      return [0, "1", 1.5];
    case "array":
      return ["not an array", [...invalidValues(t.element).slice(0, 1)]];
    case "struct":
    case "embedded":
      return ["not an object", [], { unknownKey: 1 }];
    default:
      return [];
  }
}

/** Every writable field with a valid value (optional and defaulted ones included). */
export function validObject(catalog: Catalog, fields: CatalogField[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f.isWritable).map((f) => [f.name, validValue(catalog, f.type)]));
}

export function validRow(catalog: Catalog, type: CatalogType): Record<string, unknown> {
  return Object.fromEntries(
    type.fields
      .filter((f) => f.isStored)
      .map((f) => [f.name, f.name === "id" ? 1 : f.isOptional ? null : validValue(catalog, f.type)]),
  );
}
