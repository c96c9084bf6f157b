/** The oldest Node.js the exporter runs on: the first 22.x the current Stellar SDK supports. */
const [MIN_MAJOR, MIN_MINOR] = [22, 12] as const;

/** The one line that refuses an older Node.js. Free of imports, so it runs before anything newer fails. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  if (major > MIN_MAJOR || (major === MIN_MAJOR && minor >= MIN_MINOR)) return undefined;
  return `node ${version} is not supported: use Node.js ${MIN_MAJOR}.${MIN_MINOR} or newer`;
}
