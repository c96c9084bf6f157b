import { familyLines, sourcesByFamily, type SeriesSource } from "../../src/exposition/samples.js";

/** A target's lines of every family its sources have series in, family after family, as the store renders them. */
export async function renderSamples(target: string, sources: readonly SeriesSource[]): Promise<string> {
  let text = "";
  for (const [metric, list] of sourcesByFamily(sources))
    for await (const lines of familyLines(target, metric, list)) text += lines;
  return text;
}
