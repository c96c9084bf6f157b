/** Watched Soroban contracts, checked at load: one undecodable key would fail a whole 200-key getLedgerEntries call. */
import { z } from "zod";
import { stellarBase } from "../stellar-base.js";
import { looksLikeSeed } from "./accounts.js";
import { secondsText } from "./duration.js";

/** The `entry` label values of a contract's own entries; a configured key may not take them. */
const CONTRACT_ENTRIES = ["instance", "code"] as const;

/** `name` is the `entry` label; `key` the contract-data key, a base64 XDR SCVal (checked to decode). */
const contractKeySchema = z.strictObject({
  name: z.string().min(1),
  key: z.string(),
  durability: z.enum(["persistent", "temporary"]).default("persistent"),
});
type WatchedContractKey = z.output<typeof contractKeySchema>;
export type Durability = WatchedContractKey["durability"];

export interface WatchedContract {
  /** The `contract` label. */
  readonly name: string;
  /** A C... contract StrKey. */
  readonly id: string;
  readonly keys: readonly WatchedContractKey[];
  /** Whether the events job counts its events. */
  readonly events?: boolean;
  /** It normally emits an event at least this often. */
  readonly expectEventsWithinSeconds?: number;
}

/** Said of a secret seed given where a contract id belongs; the seed itself is never repeated. */
export const SEED_NOT_CONTRACT = "that is a secret seed (S...), not a contract id (C...): never put a seed here";

/** One entry of an RPC target's `contracts:` list, before its id and keys are checked; a seed is refused here. */
export const contractEntrySchema = z.strictObject({
  name: z.string().min(1).optional(),
  id: z.string().refine((id) => !looksLikeSeed(id), SEED_NOT_CONTRACT),
  keys: z.array(contractKeySchema).optional(),
  events: z.boolean().optional(),
  expect_events_within: secondsText("expected a duration of 1s or more, such as 30m or 1h").optional(),
});
type ContractEntry = z.output<typeof contractEntrySchema>;

/** Why `key` is not base64 XDR of one SCVal (canonical, nothing left over), or undefined. */
function scValProblem(key: string): string | undefined {
  const { xdr } = stellarBase();
  try {
    if (xdr.ScVal.fromXDR(key, "base64").toXDR("base64") === key) return undefined;
  } catch {
    // Reported below, as every other undecodable key.
  }
  return `"${key.length > 60 ? `${key.slice(0, 60)}…` : key}" is not a base64 XDR SCVal`;
}

/** Checks a target's contracts; `where` names the target in each problem. */
export function watchedContracts(entries: readonly ContractEntry[], where: string, problems: string[]) {
  const names = new Set<string>();
  const contracts: WatchedContract[] = [];
  for (const entry of entries) {
    // Checked first and the entry skipped: the seed would otherwise be quoted as the bad id and as the default name.
    if (looksLikeSeed(entry.id)) {
      const which = entry.name === undefined ? "a contract" : `contract ${JSON.stringify(entry.name)}`;
      problems.push(`${where}: ${which}: ${SEED_NOT_CONTRACT}`);
      continue;
    }
    const name = entry.name ?? entry.id;
    const what = `${where}: contract ${JSON.stringify(name)}`;
    if (!stellarBase().StrKey.isValidContract(entry.id))
      problems.push(
        `${what}: "${entry.id}" is not a contract id (C followed by 55 base32 characters, with a valid checksum)`,
      );
    if (names.has(name))
      problems.push(`${where}: contract name ${JSON.stringify(name)} is used twice; names must be unique per target`);
    names.add(name);
    const keyNames = new Set<string>(CONTRACT_ENTRIES);
    const keys = entry.keys ?? [];
    for (const key of keys) {
      if (keyNames.has(key.name))
        problems.push(
          `${what}: key name ${JSON.stringify(key.name)} is used twice or is reserved ` +
            `(${CONTRACT_ENTRIES.join(", ")}); names must be unique per contract`,
        );
      keyNames.add(key.name);
      const keyProblem = scValProblem(key.key);
      if (keyProblem !== undefined) problems.push(`${what}: key ${JSON.stringify(key.name)}: ${keyProblem}`);
    }
    contracts.push({
      name,
      id: entry.id,
      keys,
      events: entry.events,
      expectEventsWithinSeconds: entry.expect_events_within,
    });
  }
  return contracts;
}
