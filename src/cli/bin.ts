#!/usr/bin/env node
// The installed command: a plain shebang that busybox's env understands, then node's flags (see node-flags.ts).
import { relaunchWithNodeFlags } from "./node-flags.js";

relaunchWithNodeFlags();
await import("./main.js");
