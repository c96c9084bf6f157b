/** The oldest Node.js the exporter runs on: the first 22.x the current Stellar SDK supports. */
const MINIMUM_NODE = [22, 12] as const;

/** The one line that refuses an older Node.js. Free of imports, so it runs before anything newer fails. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  const [minMajor, minMinor] = MINIMUM_NODE;
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  return `node ${version} is not supported: use Node.js ${minMajor}.${minMinor} or newer`;
}
