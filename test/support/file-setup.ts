/**
 * Runs before each test file. Workers run file after file in one process (vitest.config.ts
 * `isolate: false`), so what a module holds for the whole process starts empty for each file:
 * the secrets `scrubSecrets` masks, registered by the configurations an earlier file loaded.
 */
import { beforeAll } from "vitest";
import { retainSecretsOf } from "../../src/config/secret.js";

beforeAll(() => retainSecretsOf(undefined));
