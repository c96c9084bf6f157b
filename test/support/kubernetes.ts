/**
 * deploy/kubernetes as `kubectl kustomize` puts it together (kubectl is not on these machines),
 * and the `docker run` flags that run a container the way its Deployment runs the exporter, so
 * the container test proves what the manifests promise.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../../scripts/dashboards/paths.js";

export const KUBERNETES_DIR = path.join(REPO_ROOT, "deploy", "kubernetes");

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

/** The kustomization fields applied here: a list of resources, nothing transformed. */
const KUSTOMIZATION_FIELDS = new Set(["apiVersion", "kind", "resources"]);

/**
 * The resources kustomization.yaml lists, in its order, as `kubectl kustomize` prints them for a
 * kustomization that transforms nothing; throws where kustomize would fail (a missing or malformed
 * file, a resource with no apiVersion, kind or name, one id twice) or where the kustomization asks
 * for more than this stand-in applies.
 */
export function kustomize(dir = KUBERNETES_DIR): Resource[] {
  const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as Record<string, unknown>;
  const unsupported = Object.keys(kustomization).filter((field) => !KUSTOMIZATION_FIELDS.has(field));
  if (unsupported.length > 0)
    throw new Error(`kustomization.yaml: ${unsupported.join(", ")} would need kubectl kustomize itself`);
  if (kustomization.apiVersion !== "kustomize.config.k8s.io/v1beta1" || kustomization.kind !== "Kustomization") {
    throw new Error("kustomization.yaml: not a kustomize.config.k8s.io/v1beta1 Kustomization");
  }
  const seen = new Set<string>();
  return (kustomization.resources as string[]).flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), "utf8")).map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      const resource = document.toJS() as Resource;
      if (!resource?.apiVersion || !resource.kind || !resource.metadata?.name)
        throw new Error(`${file}: a resource needs apiVersion, kind and metadata.name`);
      const id = `${resource.apiVersion} ${resource.kind} ${resource.metadata.name}`;
      if (seen.has(id)) throw new Error(`${file}: ${id} is defined twice`);
      seen.add(id);
      return resource;
    }),
  );
}

export interface Probe {
  httpGet: { path: string; port: string };
}
export interface PodSecurityContext {
  runAsNonRoot: boolean;
  runAsUser: number;
  runAsGroup: number;
}
export interface ContainerSecurityContext {
  allowPrivilegeEscalation: boolean;
  readOnlyRootFilesystem: boolean;
  capabilities: { drop: string[] };
}
export interface ExporterContainer {
  image: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  readinessProbe: Probe;
  livenessProbe: Probe;
  securityContext: ContainerSecurityContext;
}
export interface ExporterDeployment {
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: { securityContext: PodSecurityContext; containers: ExporterContainer[] };
  };
}

/** The Deployment's pod security context and its (only) container. */
export function exporterPod(resources: readonly Resource[] = kustomize()): {
  securityContext: PodSecurityContext;
  container: ExporterContainer;
} {
  const deployment = resources.find((resource) => resource.kind === "Deployment") as
    | (Resource & { spec: ExporterDeployment })
    | undefined;
  const pod = deployment?.spec.template.spec;
  if (pod?.containers.length !== 1) throw new Error("deploy/kubernetes: expected one Deployment with one container");
  return { securityContext: pod.securityContext, container: pod.containers[0]! };
}

/** `docker run` flags with the effect of these security contexts (Docker's default seccomp profile is RuntimeDefault). */
export function dockerSecurityFlags(pod: PodSecurityContext, container: ContainerSecurityContext): string[] {
  return [
    `--user=${pod.runAsUser}:${pod.runAsGroup}`,
    ...(container.readOnlyRootFilesystem ? ["--read-only"] : []),
    ...(container.allowPrivilegeEscalation === false ? ["--security-opt=no-new-privileges"] : []),
    ...container.capabilities.drop.map((capability) => `--cap-drop=${capability}`),
  ];
}
