import { readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Real Horizon captures, copied into the repository with their PROVENANCE.md. */
export const FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/horizon");

export function fixtureText(name: string): string {
  return readFileSync(resolve(FIXTURES_DIR, name), "utf8");
}

export function fixtureJson<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort();
}

/** Stellar RPC captures, with their own PROVENANCE.md. */
export const RPC_FIXTURES_DIR = resolve(FIXTURES_DIR, "../stellar-rpc");

export function rpcFixtureJson<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(resolve(RPC_FIXTURES_DIR, name), "utf8")) as T;
}

export function rpcFixtureNames(): string[] {
  return readdirSync(RPC_FIXTURES_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort();
}
