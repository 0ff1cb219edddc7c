// compiler/emit/js-literal.ts, the one way source text enters generated code: for text built to
// break out of a literal or a comment, V8 itself parses what the functions print, and the
// marker statement inside the text never runs.

import { describe, expect, it } from "vitest";
import { jsComment, jsIdentifier, jsJson, jsString, objectKey, prop } from "../../compiler/emit/js-literal.js";

const ran = "globalThis.__woRan = true;";
const hostile = [
  `\n${ran}`,
  `\r${ran}`,
  `\u2028${ran}`,
  `\u2029${ran}`,
  `*/ ${ran} /*`,
  `" + (${ran}) + "`,
  `\` \${${ran}} \``,
  `</script><!-- ${ran} -->`,
  `\\`,
  `\u0000\u001b[2J\u0085\u202e`,
  `\ud800 lone surrogate`,
];

describe("js-literal", () => {
  it.each(hostile.map((h) => [JSON.stringify(h), h]))(
    "%s stays data in a string, a line comment and a block comment",
    (_shown, text) => {
      delete (globalThis as { __woRan?: boolean }).__woRan;
      expect(new Function(`return ${jsString(text)};`)()).toBe(text);
      expect(new Function(`return ${jsJson({ [text]: [text, 1, null, true] })};`)()).toEqual({
        [text]: [text, 1, null, true],
      });
      expect(new Function(`// ${jsComment(text)}\nreturn 1;`)()).toBe(1);
      expect(new Function(`/* ${jsComment(text)} */ return 2;`)()).toBe(2);
      expect(new Function(`return { ${objectKey(text)}: 3 };`)()).toEqual({ [text]: 3 });
      expect(new Function("o", `return ${prop("o", text)};`)({ [text]: 4 })).toBe(4);
      expect((globalThis as { __woRan?: boolean }).__woRan).toBeUndefined();
      expect(jsComment(text)).not.toMatch(/[\n\r\u2028\u2029]|\*\//);
    },
  );

  it("objectKey makes __proto__ an own property, not the prototype", () => {
    const o = new Function(`return { ${objectKey("__proto__")}: { polluted: true } };`)();
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(["__proto__"]);
  });

  it("jsIdentifier accepts identifiers and refuses anything else", () => {
    expect(jsIdentifier("v_rt")).toBe("v_rt");
    for (const bad of ["", "1a", "a-b", "a b", "a\nb", "a\u2028", "é"])
      expect(() => jsIdentifier(bad)).toThrow(/is not an identifier/);
  });
});
