#!/usr/bin/env node
// The installed command: a plain shebang that busybox's env understands, then node's flags (see node-flags.ts).
import { unsupportedNodeMessage } from "./node-version.js";

// Checked before anything else loads, so an old Node.js gets one line, not a stack trace.
const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(2);
}
const { relaunchWithNodeFlags } = await import("./node-flags.js");
relaunchWithNodeFlags();
await import("./main.js");
