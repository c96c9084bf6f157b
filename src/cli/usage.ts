import { VERSION } from "../version.js";

/** What `--version` prints, for the exporter and each subcommand alike. */
export function versionLine(): string {
  return `stellar-horizon-exporter ${VERSION} (node ${process.version})\n`;
}
