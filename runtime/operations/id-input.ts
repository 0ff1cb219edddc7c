// The input of a get or delete whose id is already proven: what the REST router builds from a
// path segment it matched against `[1-9][0-9]*` within the safe integers (runtime/rest/routes.ts).
// Such an input is `{ id }` and nothing else, with an id the input schema of every get and delete
// accepts (compiler/emit/json-schema.ts `byId`: an integer 1 … 2^53 − 1, required, no other key),
// so rt.validate returns it unchecked: ajv, the unknown-key scan and the text scan would only
// prove it again, on every GET by id (runtime/operations/runtime.ts).

export class IdInput {
  readonly id: number;

  private constructor(id: number) {
    this.id = id;
  }

  /** `{ id }` known to pass a byId schema; undefined for an id that is not a positive safe integer. */
  static of(id: number): IdInput | undefined {
    return Number.isSafeInteger(id) && id >= 1 ? new IdInput(id) : undefined;
  }
}
