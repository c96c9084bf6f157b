import { readFile } from "node:fs/promises";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { z } from "zod";

/** Reads, parses and validates a YAML file; one line per problem (a syntax error adds its line and a caret). */
export async function readYamlDocument<T extends z.ZodType>(
  path: string,
  what: string,
  schema: T,
): Promise<{ value: z.output<T> } | { problems: string[] }> {
  const read = await readYamlFile(path, what);
  if ("problem" in read) return { problems: [read.problem] };
  const parsed = schema.safeParse(read.document);
  if (parsed.success) return { value: parsed.data };
  return {
    problems: parsed.error.issues.map((issue) => `${what} ${path}: ${issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)"}: ${issue.message}`),
  };
}

/**
 * A syntax error shows the offending line with a caret under the column: the YAML library's own
 * message is unreadable once cut to its first line.
 */
async function readYamlFile(path: string, what: string): Promise<{ document: unknown } | { problem: string }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return { problem: `${what} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  try {
    return { document: parseYaml(text) ?? {} };
  } catch (error) {
    return { problem: `${what} ${path}: not valid YAML ${describeSyntaxError(error, text)}` };
  }
}

function describeSyntaxError(error: unknown, text: string): string {
  const message = (error as Error).message;
  const position = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
  if (!position) return `(${message.split("\n")[0]})`;
  const reason = message.replace(/ at line \d+, column \d+:[\s\S]*$/, "");
  const line = (text.split(/\r?\n/)[position.line - 1] ?? "").replace(/\t/g, " ");
  return `at line ${position.line}, column ${position.col}: ${reason}\n    ${line}\n    ${" ".repeat(position.col - 1)}^`;
}
