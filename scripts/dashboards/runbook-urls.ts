import { stringify } from "yaml";

/**
 * Where every alert's `runbook_url` points, as monitoring mixins' `runbookURLPattern`: `%s` is
 * replaced by the alert's anchor. The default is docs/runbook.md relative to the repository (and
 * package) root, which works without any hosting; set RUNBOOK_URL_PATTERN when generating to
 * point the links at an internal wiki instead.
 */
export const DEFAULT_RUNBOOK_URL_PATTERN = "docs/runbook.md#%s";

export const RUNBOOK_URL_PATTERN_ENV = "RUNBOOK_URL_PATTERN";

export function runbookUrlPatternFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const pattern = env[RUNBOOK_URL_PATTERN_ENV] ?? DEFAULT_RUNBOOK_URL_PATTERN;
  if (pattern.split("%s").length !== 2) {
    throw new Error(
      `${RUNBOOK_URL_PATTERN_ENV} must contain %s exactly once (where the alert's anchor goes), got "${pattern}"`,
    );
  }
  return pattern;
}

/** The anchor of an alert's section in docs/runbook.md: GitHub's anchor for the heading `### <AlertName>`. */
export function runbookAnchor(alertName: string): string {
  return alertName.toLowerCase();
}

export function runbookUrl(alertName: string, pattern: string): string {
  return pattern.replace("%s", runbookAnchor(alertName));
}

const ALERT_NAME_LINE = /^\s*(?:- )?(?:alert|alertname): *(\S+)\s*$/;
const RUNBOOK_URL_LINE = /^(\s*runbook_url:).*$/;

/**
 * Rewrites every `runbook_url:` line of a rules file (under `- alert:`) or of a promtool test file
 * (under `alertname:`, in `exp_annotations`) to the URL of the alert named above it. Works on the
 * text so that comments and block scalars stay exactly as written.
 */
export function withRunbookUrls(text: string, pattern: string, file: string): string {
  let alertName: string | undefined;
  return text
    .split("\n")
    .map((line, index) => {
      const nameMatch = ALERT_NAME_LINE.exec(line);
      if (nameMatch) alertName = nameMatch[1];
      const urlMatch = RUNBOOK_URL_LINE.exec(line);
      if (!urlMatch) return line;
      if (!alertName) throw new Error(`${file}:${index + 1}: runbook_url before any alert name`);
      return `${urlMatch[1]} ${stringify(runbookUrl(alertName, pattern)).trimEnd()}`;
    })
    .join("\n");
}
