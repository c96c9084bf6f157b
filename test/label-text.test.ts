import { describe, expect, it } from "vitest";
import { labelText, REPLACEMENT_CHARACTER, TRUNCATION_MARKER } from "../src/collectors/label-text.js";

describe("labelText", () => {
  it("keeps readable text as it is", () => {
    expect(labelText("stellar-core 21.1.0 (b3aeb14c) ; ünïcødé ✓", 128)).toBe(
      "stellar-core 21.1.0 (b3aeb14c) ; ünïcødé ✓",
    );
  });

  it.each([
    ["NUL", "\u0000"],
    ["ESC", "\u001b"],
    ["newline", "\n"],
    ["DEL", "\u007f"],
    ["a C1 control", "\u0085"],
    ["U+2028", "\u2028"],
    ["U+2029", "\u2029"],
    ["a bidi override", "\u202e"],
    ["a bidi isolate", "\u2066"],
    ["a zero-width joiner", "\u200d"],
    ["a lone surrogate", "\ud800"],
  ])("replaces %s with U+FFFD", (_name, character) => {
    expect(labelText(`a${character}b`, 32)).toBe(`a${REPLACEMENT_CHARACTER}b`);
  });

  it("cuts a value longer than its bound to bound - 1 characters and the marker", () => {
    expect(labelText("x".repeat(33), 32)).toBe(`${"x".repeat(31)}${TRUNCATION_MARKER}`);
    expect(labelText("x".repeat(32), 32)).toBe("x".repeat(32));
    expect(labelText("x".repeat(3_000_000), 128)).toHaveLength(128);
  });

  it("counts characters, not UTF-16 units, and never splits a surrogate pair", () => {
    expect(labelText("😀".repeat(32), 32)).toBe("😀".repeat(32));
    expect(labelText("😀".repeat(33), 32)).toBe(`${"😀".repeat(31)}${TRUNCATION_MARKER}`);
    expect(labelText(`${"x".repeat(62)}${"😀".repeat(3)}`, 32)).toBe(`${"x".repeat(31)}${TRUNCATION_MARKER}`);
  });
});
