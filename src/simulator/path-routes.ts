/**
 * Horizon's path-finding routes, `/paths/strict-send` and `/paths/strict-receive`, with their
 * exact 400s. Registered only while path finding is enabled: Horizon started with
 * `--disable-path-finding` has no such routes, and answers them 404.
 */

import type { Context, Hono } from "hono";
import type { SimulatedAccounts } from "./accounts.js";
import { canonicalAsset, parseCanonicalAsset } from "./assets.js";
import {
  MAX_ASSETS_PER_REQUEST,
  pathsPage,
  strictReceivePaths,
  strictSendPaths,
  type LiquiditySource,
} from "./paths.js";
import { badRequest, invalidField, NOT_FOUND, ProblemError, type Problem } from "./problems.js";

/** internal/actions/path.go's `SourceAssetsOrSourceAccountProblem` and its destination twin: no extras. */
function assetsOrAccountProblem(side: "source" | "destination"): Problem {
  return badRequest(
    `The request requires either a list of ${side} assets or a ${side} account. Both fields cannot be present.`,
  );
}

/** The asset of `prefix`_asset_type, _code and _issuer, as Horizon reads it. */
function assetParam(c: Context, prefix: string): string {
  const type = c.req.query(`${prefix}_asset_type`);
  if (type === "native") return "native";
  const code = c.req.query(`${prefix}_asset_code`) ?? "";
  const issuer = c.req.query(`${prefix}_asset_issuer`) ?? "";
  const asset =
    type === "credit_alphanum4" || type === "credit_alphanum12" ? parseCanonicalAsset(`${code}:${issuer}`) : undefined;
  if (asset === undefined) throw new ProblemError(invalidField(`${prefix}_asset_type`, "Invalid asset"));
  const expected = code.length <= 4 ? "credit_alphanum4" : "credit_alphanum12";
  if (type !== expected) throw new ProblemError(invalidField(`${prefix}_asset_type`, "Invalid asset"));
  return canonicalAsset(asset);
}

function stroopsParam(c: Context, field: string): number {
  const text = c.req.query(field) ?? "";
  const match = /^(\d{1,12})(?:\.(\d{1,7}))?$/.exec(text);
  const stroops = match ? Number(match[1]) * 1e7 + Number((match[2] ?? "").padEnd(7, "0")) : 0;
  if (stroops <= 0) throw new ProblemError(invalidField(field, "Value must be positive"));
  return stroops;
}

/** The other side's assets: a list, or an account's holdings; exactly one of the two. */
function otherAssets(c: Context, side: "source" | "destination", accounts: SimulatedAccounts): string[] {
  const list = c.req.query(`${side}_assets`);
  const accountId = c.req.query(`${side}_account`);
  if ((list === undefined || list === "") === (accountId === undefined || accountId === "")) {
    throw new ProblemError(assetsOrAccountProblem(side));
  }
  if (accountId !== undefined && accountId !== "") {
    const account = accounts.get(accountId);
    if (account === undefined) throw new ProblemError(NOT_FOUND);
    return ["native", ...account.trustlines.map((line) => line.asset)];
  }
  const texts = (list ?? "").split(",");
  if (texts.length > MAX_ASSETS_PER_REQUEST) {
    throw new ProblemError(
      invalidField(`${side}_assets`, `list of assets exceeds maximum length of ${MAX_ASSETS_PER_REQUEST}`),
    );
  }
  return texts.map((text) => {
    const asset = parseCanonicalAsset(text);
    if (asset === undefined) throw new ProblemError(invalidField(`${side}_assets`, `${text} is not a valid asset`));
    return canonicalAsset(asset);
  });
}

/** Registers both routes; `page` renders a 200 as every Horizon route does. */
export function registerPathRoutes(
  app: Hono,
  book: LiquiditySource,
  accounts: SimulatedAccounts,
  page: (body: unknown) => Response,
): void {
  app.get("/paths/strict-send", (c) => {
    const destinations = otherAssets(c, "destination", accounts);
    const source = assetParam(c, "source");
    const amount = stroopsParam(c, "source_amount");
    return page(pathsPage(strictSendPaths(book, source, amount, destinations)));
  });
  app.get("/paths/strict-receive", (c) => {
    const sources = otherAssets(c, "source", accounts);
    const destination = assetParam(c, "destination");
    const amount = stroopsParam(c, "destination_amount");
    return page(pathsPage(strictReceivePaths(book, sources, destination, amount)));
  });
}
