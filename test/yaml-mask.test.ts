/** A YAML line as an error message shows it: structure and keys kept, values and comments masked, the caret's column mapped. */
import { describe, expect, it } from "vitest";
import { maskYamlLine } from "../src/config/yaml-mask.js";

describe("maskYamlLine", () => {
  it.each([
    ["      Authorization: Bearer NEWTOKEN", "      Authorization: ***"],
    ["  - url: https://user:NEWTOKEN@host/path?key=NEWTOKEN", "  - url: ***"],
    [
      "    headers: { Authorization: \"Bearer NEWTOKEN\", X-Api-Key: 'NEW''TOKEN' }",
      "    headers: { Authorization: ***, X-Api-Key: *** }",
    ],
    ['    headers: { Authorization: "Bearer NEWTOKEN', "    headers: { Authorization: ***"],
    ["    headers: { Authorization: Bearer NEWTOKEN: more }", "    headers: { Authorization: *** }"],
    ['    headers: { Authorization: "Bearer, NEWTOKEN" }', "    headers: { Authorization: *** }"],
    ["    list: [NEWTOKEN, {a: NEWTOKEN}, [b]]", "    list: [***, {a: ***}, [***]]"],
    ["      Authorization: Bearer NEWTOKEN: more", "      Authorization: ***"],
    ["  - NEWTOKEN", "  - ***"],
    ["  NEWTOKEN and more", "  ***"],
    ['  "NEW TOKEN": x', "  ***: ***"],
    ["  Bearer NEWTOKEN: x", "  ***"],
    ["  key: value # NEWTOKEN", "  key: ***"],
    ["  # NEWTOKEN", "  # ***"],
    ["  key: |NEWTOKEN", "  key: ***"],
    ["  key:", "  key:"],
    ["", ""],
  ])("%j shows as %j", (line, shown) => {
    const masked = maskYamlLine(line);
    expect(masked.text).toBe(shown);
    expect(masked.text).not.toMatch(/NEW.?TOKEN|Bearer|user:/);
  });

  it("maps a column of the line to the same token in the masked line: kept text exactly, a masked value at the mask", () => {
    const line = '    headers: { Authorization: "Bearer NEWTOKEN", X-Key: [a }';
    const masked = maskYamlLine(line);
    expect(masked.text).toBe("    headers: { Authorization: ***, X-Key: [*** }");
    expect(masked.columnOf(line.indexOf("headers"))).toBe(4);
    expect(masked.columnOf(line.indexOf("{"))).toBe(13);
    expect(masked.columnOf(line.indexOf('"'))).toBe(30);
    expect(masked.columnOf(line.indexOf("NEWTOKEN"))).toBe(30);
    expect(masked.columnOf(line.indexOf("X-Key"))).toBe(35);
    expect(masked.columnOf(line.indexOf("["))).toBe(42);
    expect(masked.columnOf(line.length)).toBe(masked.text.length);
  });
});
