#!/usr/bin/env node
// The installed command. Node's memory flags are the operator's to set (README, "Memory").
import { unsupportedNodeMessage } from "./node-version.js";
import { holdReloadSignals } from "./signals.js";

// An exporter run (no command word first) takes SIGHUP as "reload": one sent while it starts must not end it.
if (process.argv[2] === undefined || process.argv[2].startsWith("-")) holdReloadSignals();

// Checked before anything else loads, so an old Node.js gets one line, not a stack trace.
const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(2);
}
await import("./main.js");
