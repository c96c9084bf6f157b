import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import bcrypt from "bcryptjs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { runSimulateCommand } from "../../src/cli/simulate.js";
import { loadConfig, type ExporterConfig } from "../../src/config/config.js";
import { Secret } from "../../src/config/secret.js";
import { DASHBOARDS_DIR, PROMETHEUS_RULE_FILE, REPO_ROOT, ruleFiles } from "../../scripts/dashboards/paths.js";
import { loadRuleGroups } from "../../scripts/dashboards/prometheus-rule.js";
import { NODE_ENVIRONMENT, NODE_FLAGS } from "../../scripts/node-memory.js";
import { createServerApp } from "../../src/server/app.js";
import { plannedRequestsPerHour } from "../../src/scheduler/request-plan.js";
import { requireBinary, run } from "../alerts/tools.js";
import { createStatusBoard, statusReport } from "../../src/status/model.js";
import {
  dockerSecurityFlags,
  exporterPod,
  KUBERNETES_DIR,
  kustomize,
  type ExporterDeployment,
  type Resource,
} from "../support/kubernetes.js";

const DEPLOY_DIR = path.join(REPO_ROOT, "deploy");
/** An alternative to deployment.yaml, not part of the kustomization. */
const SHARDED_MANIFEST = "statefulset-sharded.yaml";
/** The job name StellarHorizonExporterDown selects on. */
const EXPORTER_JOB = "stellar-horizon-exporter";
const EXPORTER_PORT = 9619;
const PACKAGE_BIN = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
).bin["stellar-horizon-exporter"]!;
const BUILD = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, "tsconfig.build.json"), "utf8")) as {
    compilerOptions: { outDir: string; rootDir: string };
  }
).compilerOptions;
/** The TypeScript file the build compiles into the package's bin. */
const BIN_SOURCE = path.join(BUILD.rootDir, path.relative(BUILD.outDir, PACKAGE_BIN)).replace(/\.js$/, ".ts");

/** Compose files use YAML merge keys (`<<:`), which YAML 1.2 parsers apply only when asked. */
function readYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8"), { merge: true }) as T;
}

async function exporterConfig(args: readonly string[]): Promise<ExporterConfig> {
  const command = await loadConfig(args, {});
  if (command.kind !== "run") throw new Error(`exporter rejects ${args.join(" ")}: ${JSON.stringify(command)}`);
  return command.config;
}

interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
}

describe("deploy/prometheus.yml", () => {
  it("passes promtool check config, rules included", () => {
    const result = run(
      requireBinary("promtool"),
      ["check", "config", path.join(DEPLOY_DIR, "prometheus.yml")],
      REPO_ROOT,
    );
    expect(result.output).toContain(`SUCCESS: ${ruleFiles().length} rule files found`);
    for (const file of ruleFiles()) {
      expect(result.output).toMatch(
        new RegExp(`Checking .*alerts/${path.basename(file)}\\s+SUCCESS: \\d+ rules found`),
      );
    }
    expect(result.code).toBe(0);
  });

  it("scrapes the exporter under the job name the alerts expect", () => {
    const config = readYaml<PrometheusConfig>(path.join(DEPLOY_DIR, "prometheus.yml"));
    expect(config.scrape_configs.map((job) => job.job_name)).toEqual([EXPORTER_JOB]);
  });
});

describe("deploy/docker-compose.yml", () => {
  interface Service {
    image?: string;
    build?: { context: string; dockerfile: string };
    command?: string[];
    ports?: string[];
    volumes?: string[];
    environment?: Record<string, string>;
  }
  const compose = readYaml<{ services: Record<string, Service> }>(path.join(DEPLOY_DIR, "docker-compose.yml"));
  const service = (name: string): Service => {
    const found = compose.services[name];
    if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
    return found;
  };
  /** Container path → host path (absolute) of a service's bind mounts. */
  const bindMounts = (name: string): Map<string, string> =>
    new Map(
      (service(name).volumes ?? [])
        .map((volume) => volume.split(":"))
        .filter(([source]) => source?.startsWith("."))
        .map(([source, target]) => [target ?? "", path.resolve(DEPLOY_DIR, source ?? "")]),
    );
  /** Where a host path appears inside a service's container, through its bind mounts. */
  const containerPath = (name: string, hostPath: string): string | undefined => {
    for (const [target, source] of bindMounts(name)) {
      if (hostPath === source || hostPath.startsWith(source + path.sep))
        return path.posix.join(target, path.relative(source, hostPath));
    }
    return undefined;
  };
  const flag = (args: readonly string[], name: string): string | undefined =>
    args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

  it("runs the simulator, the exporter, Prometheus and Grafana", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["exporter", "grafana", "prometheus", "simulator"]);
  });

  it("builds the exporter and simulator from the repository's Dockerfile", () => {
    for (const name of ["exporter", "simulator"]) {
      const { build } = service(name);
      expect(build).toBeDefined();
      expect(existsSync(path.resolve(DEPLOY_DIR, build?.context ?? "", build?.dockerfile ?? ""))).toBe(true);
    }
  });

  it("bind-mounts only files that exist, read-only", () => {
    for (const name of Object.keys(compose.services)) {
      for (const volume of service(name).volumes ?? []) {
        if (!volume.startsWith(".")) continue;
        expect(existsSync(path.resolve(DEPLOY_DIR, volume.split(":")[0] ?? ""))).toBe(true);
        expect(volume.endsWith(":ro")).toBe(true);
      }
    }
  });

  it("publishes ports on loopback only", () => {
    for (const name of Object.keys(compose.services)) {
      for (const port of service(name).ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });

  it("points the exporter at the simulator with flags the exporter accepts", async () => {
    const simulatorAddress = flag(service("simulator").command ?? [], "web.listen-address");
    const config = await exporterConfig(service("exporter").command ?? []);
    expect(config.targets.map((target) => target.url.href.reveal())).toEqual([
      `http://simulator:${simulatorAddress?.split(":")[1]}`,
    ]);
    expect(config.listen.port).toBe(EXPORTER_PORT);
    expect(service("exporter").ports).toEqual([`127.0.0.1:${EXPORTER_PORT}:${EXPORTER_PORT}`]);
  });

  it("plans no more requests per hour than each target's budget, so it starts without a warning", async () => {
    const config = await exporterConfig(service("exporter").command ?? []);
    for (const target of config.targets)
      expect(plannedRequestsPerHour(target, config)).toBeLessThanOrEqual(target.requestBudgetPerHour);
  });

  it("gives the simulator only flags its --help lists", async () => {
    let usage = "";
    await runSimulateCommand(["--help"], { stdout: { write: (text: string) => (usage += text) } });
    const [subcommand, ...args] = service("simulator").command ?? [];
    expect(subcommand).toBe("simulate");
    for (const arg of args) expect(usage).toContain(`${arg.split("=")[0]}=`);
  });

  it("loads prometheus.yml and the rules where prometheus.yml expects them", () => {
    const configFile = flag(service("prometheus").command ?? [], "config.file");
    expect(configFile).toBe(containerPath("prometheus", path.join(DEPLOY_DIR, "prometheus.yml")));
    const config = readYaml<PrometheusConfig>(path.join(DEPLOY_DIR, "prometheus.yml"));
    for (const ruleFile of config.rule_files) {
      const inContainer = path.posix.resolve(path.posix.dirname(configFile ?? ""), ruleFile);
      expect(inContainer).toBe(containerPath("prometheus", path.resolve(DEPLOY_DIR, ruleFile)));
    }
    expect(config.scrape_configs[0]?.static_configs[0]?.targets).toEqual([`exporter:${EXPORTER_PORT}`]);
  });

  it("provisions Grafana with the Prometheus service and the dashboards folder", () => {
    const provisioning = path.join(DEPLOY_DIR, "grafana", "provisioning");
    expect(containerPath("grafana", provisioning)).toBe("/etc/grafana/provisioning");

    const datasources = readYaml<{ datasources: { type: string; url: string; isDefault: boolean }[] }>(
      path.join(provisioning, "datasources", "prometheus.yml"),
    ).datasources;
    expect(datasources).toEqual([
      expect.objectContaining({ type: "prometheus", url: "http://prometheus:9090", isDefault: true }),
    ]);

    const providers = readYaml<{ providers: { options: { path: string } }[] }>(
      path.join(provisioning, "dashboards", "stellar-horizon.yml"),
    ).providers;
    const dashboardsInContainer = containerPath("grafana", path.join(REPO_ROOT, "dashboards"));
    expect(providers.map((provider) => provider.options.path)).toEqual([dashboardsInContainer]);
    const home = service("grafana").environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? "";
    expect(existsSync(path.join(REPO_ROOT, "dashboards", path.posix.relative(dashboardsInContainer ?? "", home)))).toBe(
      true,
    );
  });

  it("pins a Grafana that reads the generated dashboards' schema version", () => {
    // The first Grafana release of each schema version a generated dashboard has had: Grafana
    // migrates older schemas on load, but a newer one than it knows may lose settings (42 came
    // with 12.2, grafana/grafana#110517).
    const firstGrafana: Record<number, [number, number]> = { 41: [11, 6], 42: [12, 2] };
    const versions = new Set(
      readdirSync(DASHBOARDS_DIR)
        .filter((file) => file.endsWith(".json"))
        .map(
          (file) =>
            (JSON.parse(readFileSync(path.join(DASHBOARDS_DIR, file), "utf8")) as { schemaVersion: number })
              .schemaVersion,
        ),
    );
    const [major, minor] = (/^grafana\/grafana:(\d+)\.(\d+)\.\d+$/.exec(service("grafana").image ?? "") ?? [])
      .slice(1)
      .map(Number);
    for (const version of versions) {
      const [needMajor, needMinor] = firstGrafana[version] ?? [Infinity, 0];
      expect(
        major! > needMajor || (major === needMajor && minor! >= needMinor),
        `schemaVersion ${version} on Grafana ${major}.${minor}`,
      ).toBe(true);
    }
  });
});

describe("package.json", () => {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };

  it("builds on npm ci (prepare) unless dist/ is current, so the bin exists right after install", () => {
    expect(manifest.scripts.prepare).toBe("node scripts/dist-is-current.mjs || npm run build --silent");
    expect(manifest.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json/);
    expect(existsSync(path.join(REPO_ROOT, BIN_SOURCE))).toBe(true);
  });

  it("starts the exporter and the demo with node's memory flags and environment", () => {
    // A variable the operator set is kept: the shell's default applies only when it is unset.
    const environment = Object.entries(NODE_ENVIRONMENT)
      .map(([name, value]) => `${name}=\${${name}:-${value}}`)
      .join(" ");
    // Built only when the sources changed; `exec`, so the signals npm forwards reach node, not a shell.
    const node = `node scripts/dist-is-current.mjs || npm run build --silent && ${environment} exec node ${NODE_FLAGS.join(" ")}`;
    expect(manifest.scripts.start).toBe(`${node} ${PACKAGE_BIN}`);
    expect(manifest.scripts.demo).toBe(`${node} ${PACKAGE_BIN} demo`);
    // The bench measures exporters it starts itself, with the same flags and environment (scripts/bench.ts).
    expect(manifest.scripts.bench).toBe("npm run build --silent && node --import tsx scripts/bench.ts");
  });
});

describe("Dockerfile", () => {
  const dockerfile = readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8").replaceAll("\\\n", " ");
  const instructions = dockerfile
    .split("\n")
    .filter((line) => /^[A-Z]+ /.test(line))
    .map((line) => ({ keyword: line.split(" ")[0] ?? "", args: line.slice(line.indexOf(" ") + 1).trim() }));
  const stages = instructions.reduce<(typeof instructions)[]>((all, instruction) => {
    if (instruction.keyword === "FROM") all.push([]);
    all.at(-1)?.push(instruction);
    return all;
  }, []);
  const runtime = stages.at(-1) ?? [];
  const argsOf = (keyword: string) =>
    runtime.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);

  it("builds in one stage and runs production dependencies only in another", () => {
    expect(stages.length).toBe(2);
    expect(dockerfile).toMatch(/ARG NODE_IMAGE=node:24-bookworm-slim/);
    expect(stages[0]?.map((instruction) => instruction.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b/), "npm run build"]),
    );
    expect(argsOf("RUN").join(" ")).toMatch(/npm ci --omit=dev/);
    expect(argsOf("COPY")).toContain("--from=build /app/dist ./dist");
  });

  it("runs as the unprivileged node user on the exporter's port", () => {
    expect(argsOf("USER")).toEqual(["node"]);
    expect(argsOf("EXPOSE")).toEqual([String(EXPORTER_PORT)]);
  });

  it("checks /healthz with the bin's healthcheck and starts the CLI the package declares", () => {
    const [healthcheck] = argsOf("HEALTHCHECK");
    expect(
      healthcheck?.endsWith(
        `CMD ${JSON.stringify(["node", ...NODE_FLAGS, PACKAGE_BIN, "healthcheck"]).replaceAll(",", ", ")}`,
      ),
    ).toBe(true);
    expect(argsOf("ENTRYPOINT")).toEqual([JSON.stringify(["node", ...NODE_FLAGS, PACKAGE_BIN]).replaceAll(",", ", ")]);
    expect(argsOf("ENV")).toContain(
      Object.entries(NODE_ENVIRONMENT)
        .map(([name, value]) => `${name}=${value}`)
        .join(" "),
    );
  });

  it("gives the bin a shebang busybox's env understands (no -S)", () => {
    expect(readFileSync(path.join(REPO_ROOT, BIN_SOURCE), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  it("copies only files that exist and .dockerignore lets through", () => {
    const allowed = readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("!"))
      .map((line) => line.slice(1).replace(/\/$/, ""));
    const sources = instructions
      .filter((instruction) => instruction.keyword === "COPY" && !instruction.args.startsWith("--from"))
      .flatMap((instruction) => instruction.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(path.join(REPO_ROOT, source))).toBe(true);
      expect(allowed).toContain(source);
    }
  });
});

describe("deploy/kubernetes", () => {
  const resources = kustomize();
  const resource = <T>(kind: string): Resource & { spec: T } => {
    const found = resources.filter((candidate) => candidate.kind === kind);
    expect(found).toHaveLength(1);
    return found[0] as Resource & { spec: T };
  };
  const deployment = resource<ExporterDeployment>("Deployment");
  const service = resource<{
    selector: Record<string, string>;
    ports: { name: string; port: number; targetPort: string }[];
  }>("Service");
  const serviceMonitor = resource<{
    selector: { matchLabels: Record<string, string> };
    endpoints: { port: string; path: string }[];
  }>("ServiceMonitor");
  const { container, securityContext } = exporterPod(resources);

  it("builds as kubectl kustomize builds it: every listed file, each resource once", () => {
    expect(resources.map((found) => `${found.kind}/${found.metadata.name}`)).toEqual([
      "Deployment/stellar-horizon-exporter",
      "Service/stellar-horizon-exporter",
      "ServiceMonitor/stellar-horizon-exporter",
      "PrometheusRule/stellar-horizon-exporter",
    ]);
  });

  it("kustomization.yaml lists every manifest", () => {
    const kustomization = readYaml<{ resources: string[] }>(path.join(KUBERNETES_DIR, "kustomization.yaml"));
    const manifests = readdirSync(KUBERNETES_DIR).filter(
      (file) => file !== "kustomization.yaml" && file !== SHARDED_MANIFEST,
    );
    expect(kustomization.resources.sort()).toEqual(manifests.sort());
  });

  it("runs the exporter non-root on the port its arguments listen on", async () => {
    expect(securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
    expect(container?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    const config = await exporterConfig(container?.args ?? []);
    expect(container?.ports).toEqual([{ name: "metrics", containerPort: config.listen.port }]);
    expect(config.listen.port).toBe(EXPORTER_PORT);
  });

  it("is run by the container test under these security contexts (test/container/image.test.ts)", () => {
    expect(dockerSecurityFlags(securityContext, container.securityContext)).toEqual([
      "--user=1000:1000",
      "--read-only",
      "--security-opt=no-new-privileges",
      "--cap-drop=ALL",
    ]);
  });

  it("probes /readyz and /healthz on the metrics port", () => {
    expect(container?.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "metrics" });
    expect(container?.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
  });

  it("probes paths that answer without credentials when basic auth is on", async () => {
    const app = createServerApp({
      version: "test",
      web: () => ({ basicAuthUsers: { alice: new Secret(bcrypt.hashSync("secret", 4)) }, headers: {} }),
      renderMetrics: async () => [],
      status: () => statusReport("test", [], createStatusBoard(), 0),
      isReady: () => true,
    });
    expect((await app.request("/metrics")).status).toBe(401);
    for (const probe of [container?.readinessProbe, container?.livenessProbe]) {
      expect((await app.request(probe?.httpGet.path ?? "")).status).toBe(200);
    }
  });

  it("wires Deployment, Service and ServiceMonitor by labels and port name", () => {
    const podLabels = deployment.spec.template.metadata.labels;
    expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
    expect(podLabels).toMatchObject(service.spec.selector);
    expect(service.spec.ports).toEqual([{ name: "metrics", port: EXPORTER_PORT, targetPort: "metrics" }]);
    expect(service.metadata.labels).toMatchObject(serviceMonitor.spec.selector.matchLabels);
    expect(serviceMonitor.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
  });

  it("names the Service after the job the alerts select, which the ServiceMonitor uses as job label", () => {
    expect(service.metadata.name).toBe(EXPORTER_JOB);
    expect(serviceMonitor.spec).not.toHaveProperty("jobLabel");
  });

  it("ships the rules file unchanged as a PrometheusRule", () => {
    const prometheusRule = resource<{ groups: unknown }>("PrometheusRule");
    expect(prometheusRule.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(prometheusRule.spec.groups).toEqual(loadRuleGroups());
    expect(path.dirname(PROMETHEUS_RULE_FILE)).toBe(KUBERNETES_DIR);
  });
});
