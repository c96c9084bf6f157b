/**
 * A validator-style check of XHTML-compatible markup: every element closed and nested, attributes
 * quoted and unique, `<` and `&` only as markup or entities, one root element. Returns the
 * problems found; none means an XML parser would accept the document.
 */
export function wellFormedProblems(markup: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  let roots = 0;
  const body = markup.replace(/^<!DOCTYPE html>\s*/i, "");
  const token =
    /<!--[\s\S]*?-->|<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s=/>]+="[^"<]*")*)\s*(\/?)>|<|&(?!(?:amp|lt|gt|quot|#\d+|#x[0-9a-fA-F]+);)/g;
  for (const match of body.matchAll(token)) {
    const [whole, closing, name, attributes, selfClosing] = match;
    const at = `offset ${match.index}`;
    if (whole.startsWith("<!--")) continue;
    if (name === undefined) {
      problems.push(`${at}: stray ${JSON.stringify(whole)} (not markup, not an entity)`);
      continue;
    }
    if (closing) {
      const expected = open.pop();
      if (expected !== name) problems.push(`${at}: </${name}> closes <${expected ?? "nothing"}>`);
      continue;
    }
    const names = [...(attributes ?? "").matchAll(/([^\s=]+)="/g)].map((attribute) => attribute[1]!);
    const duplicate = names.find((attribute, index) => names.indexOf(attribute) !== index);
    if (duplicate) problems.push(`${at}: <${name}> repeats the attribute ${duplicate}`);
    if (open.length === 0) roots += 1;
    if (!selfClosing) open.push(name);
  }
  if (open.length > 0) problems.push(`unclosed elements: ${open.join(" > ")}`);
  if (roots !== 1) problems.push(`${roots} root elements instead of one`);
  return problems;
}
