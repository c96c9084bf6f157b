/** The tx probe's settings (`tx_probe:`); its seed, from a file or env var, is a Secret: never in a message or log. */
import { stat, readFile } from "node:fs/promises";
import type { Keypair } from "@stellar/stellar-base";
import { stellarBase } from "../stellar-base.js";
import type { WatchedAccount } from "./accounts.js";
import type { TxProbeEntry } from "./file-schema.js";
import { parseSchedule, type Schedule } from "./schedule.js";
import { Secret } from "./secret.js";
import type { TargetUrl } from "./target-url.js";

export const TX_PROBE_DEFAULTS = { interval: "1m", maxFee: 1000, allowPubnet: false } as const;

/** The `account` label the probe's source account is watched under, unless already watched. */
export const TX_PROBE_ACCOUNT_NAME = "tx_probe";

/** Public Horizons known to serve pubnet, so the probe can be refused before anything starts. */
const PUBNET_HOSTS = new Set(["horizon.stellar.org", "horizon.stellar.lobstr.co"]);

export interface TxProbeConfig {
  readonly schedule: Schedule;
  /** Stroops per operation the probe may bid. */
  readonly maxFee: number;
  readonly allowPubnet: boolean;
  /** The seed's public key: the account the probe submits from. */
  readonly accountId: string;
  /** The seed file, checked for group/other permissions at start. */
  readonly secretFile?: string;
  /** The signing key; its seed is what `scrubSecrets` masks. */
  readonly signer: Secret<Keypair>;
}

/** The seed's text from its file or environment variable, or a problem line naming the source, never its content. */
async function seedText(entry: TxProbeEntry, env: NodeJS.ProcessEnv, at: string): Promise<{ text: string } | string> {
  if (entry.secret_file !== undefined) {
    const text = await readFile(entry.secret_file, "utf8").catch((error: NodeJS.ErrnoException) => error);
    return text instanceof Error ? `${at}: cannot be read (${text.code ?? "error"})` : { text };
  }
  const text = env[entry.secret_env ?? ""];
  if (text === undefined || text === "")
    return `${at}: the environment variable is ${text === undefined ? "not set" : "empty"}`;
  return { text };
}

/** The probe's settings, or a problem line. Messages name the file or variable, never its content. */
export async function loadTxProbe(
  entry: TxProbeEntry,
  target: { readonly name: string; readonly url: TargetUrl },
  env: NodeJS.ProcessEnv,
): Promise<TxProbeConfig | string> {
  const where = `target "${target.name}": tx_probe`;
  const from = entry.secret_file === undefined ? `secret_env ${entry.secret_env}` : `secret_file ${entry.secret_file}`;
  const at = `${where}.${from}`;
  const seed = await seedText(entry, env, at);
  if (typeof seed === "string") return seed;
  const { Keypair, StrKey } = stellarBase();
  if (!StrKey.isValidEd25519SecretSeed(seed.text.trim()))
    return `${at}: does not hold a valid Stellar secret seed (S...)`;
  const allowPubnet = entry.allow_pubnet ?? TX_PROBE_DEFAULTS.allowPubnet;
  // A fully qualified name's trailing dot (`horizon.stellar.org.`) reaches the same Horizon.
  if (!allowPubnet && PUBNET_HOSTS.has(target.url.hostname.replace(/\.$/, "")))
    return (
      `${where}: ${target.url.hostname} serves pubnet, where every probe spends real lumens; set ` +
      "tx_probe.allow_pubnet: true to allow it"
    );
  return txProbeWith(Keypair.fromSecret(seed.text.trim()), {
    interval: entry.interval ?? TX_PROBE_DEFAULTS.interval,
    maxFee: entry.max_fee ?? TX_PROBE_DEFAULTS.maxFee,
    allowPubnet,
    secretFile: entry.secret_file,
  });
}

/** Settings for a probe signing with `signer`; the interval must be a valid schedule. */
export function txProbeWith(
  signer: Keypair,
  { interval, ...options }: { interval: string; maxFee: number; allowPubnet: boolean; secretFile?: string },
): TxProbeConfig {
  const schedule = parseSchedule(interval) as Schedule;
  return { ...options, schedule, accountId: signer.publicKey(), signer: new Secret(signer, signer.secret()) };
}

/** The target probing with `txProbe`; the probe's account is watched too (its balance running out is alerted on). */
export function withTxProbe<T extends { accounts: readonly WatchedAccount[] }>(target: T, txProbe: TxProbeConfig) {
  const { accounts } = target;
  const flags = { offers: false, claimableBalances: false, cold: false };
  const account: WatchedAccount = { name: TX_PROBE_ACCOUNT_NAME, id: txProbe.accountId, lowBalance: {}, ...flags };
  const watched = accounts.some(({ id }) => id === txProbe.accountId);
  return { ...target, txProbe, accounts: watched ? [...accounts] : [...accounts, account] };
}

/** A warning when the seed file can be read by anyone but its owner; undefined when it cannot. */
export async function secretFileWarning(path: string): Promise<string | undefined> {
  const mode = (await stat(path).catch(() => undefined))?.mode;
  if (mode === undefined || (mode & 0o077) === 0) return undefined;
  const octal = (mode & 0o777).toString(8);
  return `tx_probe secret file ${path} is readable by group or others (mode ${octal}); chmod 600 it`;
}
