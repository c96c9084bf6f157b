import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { REPO_ROOT } from "../../scripts/dashboards/paths.js";
import { writeConfig } from "../support/config-files.js";

interface StatefulSet {
  kind: string;
  spec: {
    replicas: number;
    serviceName: string;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        securityContext: Record<string, unknown>;
        containers: {
          args: string[];
          env: { name: string; value?: string; valueFrom?: { fieldRef: { fieldPath: string } } }[];
          securityContext: Record<string, unknown>;
          readinessProbe: { httpGet: { path: string } };
          livenessProbe: { httpGet: { path: string } };
        }[];
      };
    };
  };
}

const manifest = parse(
  readFileSync(path.join(REPO_ROOT, "deploy/kubernetes/statefulset-sharded.yaml"), "utf8"),
) as StatefulSet;
const container = manifest.spec.template.spec.containers[0]!;
const env = new Map(container.env.map((variable) => [variable.name, variable]));

/** Kubernetes' $(VAR) expansion of an env value from the variables before it. */
const expand = (value: string, values: Record<string, string>) =>
  value.replace(/\$\((\w+)\)/g, (_, name: string) => values[name] ?? `$(${name})`);

describe("deploy/kubernetes/statefulset-sharded.yaml", () => {
  it("gives each pod SHARD=<its ordinal>/<replicas>", () => {
    expect(manifest.kind).toBe("StatefulSet");
    expect(env.get("SHARD_INDEX")?.valueFrom?.fieldRef.fieldPath).toBe(
      "metadata.labels['apps.kubernetes.io/pod-index']",
    );
    expect(Number(env.get("SHARD_TOTAL")?.value)).toBe(manifest.spec.replicas);
    expect(expand(env.get("SHARD")!.value!, { SHARD_INDEX: "2", SHARD_TOTAL: env.get("SHARD_TOTAL")!.value! })).toBe(
      `2/${manifest.spec.replicas}`,
    );
    expect([...env.keys()].indexOf("SHARD")).toBeGreaterThan([...env.keys()].indexOf("SHARD_TOTAL"));
  });

  it("runs, with each ordinal's SHARD, the arguments the exporter accepts", async () => {
    const file = writeConfig("rpc_targets:\n  - url: https://rpc.example.com/\n");
    const args = container.args.map((arg) => arg.replace("/etc/stellar-horizon-exporter/config.yml", file));
    for (let index = 0; index < manifest.spec.replicas; index++) {
      const shard = expand(env.get("SHARD")!.value!, {
        SHARD_INDEX: String(index),
        SHARD_TOTAL: String(manifest.spec.replicas),
      });
      const command = await loadConfig(args, { SHARD: shard });
      expect(command.kind === "run" && command.config.shard).toEqual({ index, total: manifest.spec.replicas });
    }
  });

  it("keeps the Deployment's security context and probes", () => {
    expect(manifest.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(manifest.spec.template.metadata.labels).toMatchObject(manifest.spec.selector.matchLabels);
  });
});
