/** Reading an exporter's /metrics text in the bench's phases. */

/** Series in an exposition: its lines but comments. */
export const seriesIn = (text: string): number =>
  text.split("\n").filter((line) => line && !line.startsWith("#")).length;

/** The sum of the values of the series whose lines start with `prefix`. */
export function valuesSum(text: string, prefix: string): number {
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(prefix)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/** The value of the series `name` (with its labels) in an exposition; NaN when absent. */
export function valueOf(text: string, name: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
}
