// A form generated from an operation's JSON Schema (an object with `properties`): a text,
// number or checkbox input per scalar property, a select for an enum (and for an optional
// boolean: unset, true, false), a JSON textarea for anything nested. `read()` turns the inputs
// back into the JSON value to send: an empty input leaves its property out, so the server's
// own validation and defaults decide. Every label and description is set with textContent.

/**
 * Options: `omit` (property names to leave out), `idPrefix` (for element ids), `emptyText` (shown
 * when there is no property), `singleLine` (one-line inputs even for long text: filters),
 * `initial` (values to start from: a row being edited).
 * @returns {{ element: HTMLElement, read: () => ({ ok: true, value: object } | { ok: false, error: string }) }} */
export function schemaForm(schema, options = {}) {
  const omit = new Set(options.omit ?? []);
  const required = new Set(schema?.required ?? []);
  const element = document.createElement("div");
  element.className = "schema-form";
  const readers = [];
  const properties = Object.entries(schema?.properties ?? {}).filter(([name]) => !omit.has(name));
  if (properties.length === 0) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = options.emptyText ?? "No input.";
    element.append(none);
  }
  for (const [name, property] of properties) {
    const { field, read } = fieldFor(name, property ?? {}, required.has(name), options);
    if (options.initial && Object.hasOwn(options.initial, name)) setValue(field, property ?? {}, options.initial[name]);
    element.append(field);
    readers.push([name, read]);
  }
  return {
    element,
    read() {
      const value = {};
      for (const [name, read] of readers) {
        const r = read();
        if (r.error) return { ok: false, error: `${name}: ${r.error}` };
        if (r.present) value[name] = r.value;
      }
      return { ok: true, value };
    },
  };
}

let counter = 0;

function fieldFor(name, property, isRequired, options) {
  const id = `${options.idPrefix ?? "f"}-${name}-${++counter}`;
  const field = document.createElement("div");
  field.className = "field";
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = name;
  if (isRequired) {
    const star = document.createElement("span");
    star.className = "required";
    star.textContent = " *";
    star.title = "required";
    label.append(star);
  }
  const types = Array.isArray(property.type) ? property.type : property.type ? [property.type] : [];
  const nullable = types.includes("null");
  const base = types.find((t) => t !== "null");
  const hint = document.createElement("span");
  hint.className = "type-hint";
  hint.textContent = typeHint(property, base, nullable);
  label.append(hint);
  field.append(label);

  let input;
  let readInput;
  if (Array.isArray(property.enum)) {
    input = document.createElement("select");
    addOption(input, "", isRequired ? "— choose —" : "— not set —");
    for (const v of property.enum) if (v !== null) addOption(input, JSON.stringify(v), String(v));
    readInput = () => (input.value === "" ? absent : { present: true, value: JSON.parse(input.value) });
  } else if (base === "boolean" && isRequired && !nullable) {
    input = document.createElement("input");
    input.type = "checkbox";
    readInput = () => ({ present: true, value: input.checked });
  } else if (base === "boolean") {
    input = document.createElement("select");
    addOption(input, "", "— not set —");
    addOption(input, "true", "true");
    addOption(input, "false", "false");
    readInput = () => (input.value === "" ? absent : { present: true, value: input.value === "true" });
  } else if (base === "integer" || base === "number") {
    input = document.createElement("input");
    input.type = "number";
    input.step = base === "integer" ? "1" : "any";
    if (property.minimum !== undefined) input.min = String(property.minimum);
    if (property.maximum !== undefined) input.max = String(property.maximum);
    readInput = () => {
      if (input.value.trim() === "") return absent;
      const n = Number(input.value);
      if (!Number.isFinite(n)) return { error: "not a number" };
      return { present: true, value: n };
    };
  } else if (base === "string") {
    const long = property.contentMediaType === "text/markdown" && !options.singleLine;
    input = document.createElement(long ? "textarea" : "input");
    if (long) input.rows = 3;
    else input.type = "text";
    if (property.format) input.placeholder = property.format === "date-time" ? "2026-01-31T12:00:00.000Z" : property.format;
    readInput = () => (input.value === "" ? absent : { present: true, value: input.value });
  } else {
    input = document.createElement("textarea");
    input.rows = 3;
    input.className = "json";
    input.placeholder = base === "array" ? "[ … ] as JSON" : base === "object" ? "{ … } as JSON" : "a JSON value";
    readInput = () => {
      if (input.value.trim() === "") return absent;
      try {
        return { present: true, value: JSON.parse(input.value) };
      } catch (err) {
        return { error: `not valid JSON (${err.message})` };
      }
    };
  }
  input.id = id;
  input.name = name;
  const control = document.createElement("div");
  control.className = "control";
  control.append(input);

  let isNull;
  if (nullable) {
    const nullLabel = document.createElement("label");
    nullLabel.className = "null-toggle";
    isNull = document.createElement("input");
    isNull.type = "checkbox";
    isNull.addEventListener("change", () => (input.disabled = isNull.checked));
    nullLabel.append(isNull, document.createTextNode(" null"));
    control.append(nullLabel);
  }
  field.append(control);
  if (property.description) {
    const description = document.createElement("p");
    description.className = "description";
    description.textContent = property.description;
    field.append(description);
  }
  return { field, read: () => (isNull?.checked ? { present: true, value: null } : readInput()) };
}

const absent = { present: false };

/** Puts `value` into a field made by fieldFor, in the form its reader reads back. */
function setValue(field, property, value) {
  const input = field.querySelector(".control > input, .control > select, .control > textarea");
  const isNull = field.querySelector(".null-toggle input");
  if (value === null) {
    if (isNull) {
      isNull.checked = true;
      input.disabled = true;
    }
    return;
  }
  if (input.type === "checkbox") input.checked = value === true;
  else if (input.tagName === "SELECT") input.value = Array.isArray(property.enum) ? JSON.stringify(value) : String(value);
  else if (input.classList.contains("json")) input.value = JSON.stringify(value, null, 2);
  else input.value = String(value);
}

function addOption(select, value, text) {
  const option = document.createElement("option");
  option.value = value;
  option.textContent = text;
  select.append(option);
}

function typeHint(property, base, nullable) {
  let text = Array.isArray(property.enum) ? "enum" : (base ?? "JSON");
  if (property.format) text += ` · ${property.format}`;
  if (nullable) text += " · nullable";
  return ` ${text}`;
}
