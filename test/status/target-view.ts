import type { TargetLabel } from "../../src/catalog/metrics.js";
import type { TargetView } from "../../src/status/model.js";

/** A target whose heartbeat poll (`root` for a Horizon, `status` for a Stellar RPC) succeeded 5 s before `nowMs`. */
export function polledTarget(label: TargetLabel, name: string, nowMs: number): TargetView {
  const endpoint = label === "rpc" ? "status" : "root";
  return {
    label,
    name,
    title: name,
    url: `https://${name}.example/`,
    endpoints: [{ target: name, endpoint, schedule: "10s", polls: 3, lastSuccessMs: nowMs - 5_000 }],
  };
}
