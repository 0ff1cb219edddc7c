// unstorableTexts (runtime/operations/input-checks.ts): every text the stores cannot keep is found
// with its JSON pointer, keys included, whatever value a key holds.
import { describe, expect, it } from "vitest";
import { loneSurrogateMessage, nulCharacterMessage, unstorableTexts } from "../../runtime/operations/input-checks.js";

describe("unstorableTexts", () => {
  it("passes well-formed input, numbers and nulls included", () => {
    expect(unstorableTexts({ id: 7, flag: true, none: null, title: "fine", tags: ["a", 1] })).toEqual([]);
  });

  it("finds a bad key whose value is a number, boolean or null, not only a text", () => {
    const found = unstorableTexts({ "a\u0000": 1, "b\ud800": false, "c/~\u0000": null });
    expect(found.sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual([
      { path: "/a\u0000", message: nulCharacterMessage },
      { path: "/b\ud800", message: loneSurrogateMessage },
      { path: "/c~1~0\u0000", message: nulCharacterMessage },
    ]);
  });

  it("finds bad texts nested under well-formed keys, with the escaped pointer", () => {
    expect(unstorableTexts({ "x/y": { list: [1, "ok", "\u0000"] } })).toEqual([
      { path: "/x~1y/list/2", message: nulCharacterMessage },
    ]);
  });
});
