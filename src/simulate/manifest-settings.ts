/** Reading probe and resource settings from a synthesized manifest (the scenario's `manifest`). */
import * as YAML from 'yaml';
import { DEFAULTS } from './scenario-defaults';
import { ScenarioError } from './scenario-error';
import type { Obj } from './scenario-reader';
import type { ProbeSettings } from './scenario-types';

export interface ManifestProbe extends ProbeSettings {
  handler: 'http' | 'tcp';
}

/** What the simulator takes from a synthesized manifest. */
export interface ManifestSettings {
  kind: 'Deployment' | 'Rollout';
  name: string;
  replicas?: number;
  readiness?: ManifestProbe;
  liveness?: ManifestProbe;
  cpuRequestCores?: number;
  cpuLimitCores?: number;
}

/** Parse a Kubernetes CPU quantity ("500m", "1", "1.5", 2) into cores. */
export function parseCpuQuantity(q: unknown): number | undefined {
  if (typeof q === 'number' && Number.isFinite(q) && q >= 0) return q;
  if (typeof q !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(m?)\s*$/.exec(q);
  if (!m) return undefined;
  const v = Number(m[1]);
  return m[2] === 'm' ? v / 1000 : v;
}

/**
 * Read probe and resource settings from a multi-document YAML manifest: the
 * first `apps/v1 Deployment` or `argoproj.io/v1alpha1 Rollout`, its first
 * container's readinessProbe / livenessProbe (missing probe fields take the
 * Kubernetes defaults), `resources.requests.cpu` / `limits.cpu`, and
 * `spec.replicas`. Throws ScenarioError when there is no such workload.
 */
export function readManifestSettings(yamlText: string, source = 'manifest'): ManifestSettings {
  const docs = YAML.parseAllDocuments(yamlText);
  for (const d of docs) {
    if (d.errors.length > 0) {
      throw new ScenarioError(
        [
          {
            field: '(yaml)',
            value: d.errors[0].message,
            why: 'the manifest is not valid YAML',
            fix: 'regenerate it with rollwise synth',
          },
        ],
        source,
      );
    }
    const o = d.toJS() as unknown;
    if (!o || typeof o !== 'object') continue;
    const r = o as Obj;
    const isDeployment = r.apiVersion === 'apps/v1' && r.kind === 'Deployment';
    const isRollout = r.apiVersion === 'argoproj.io/v1alpha1' && r.kind === 'Rollout';
    if (!isDeployment && !isRollout) continue;
    const spec = (r.spec ?? {}) as Obj;
    const name = String(((r.metadata ?? {}) as Obj).name ?? '(unnamed)');
    const template = spec.template as Obj | undefined;
    const containers = ((template?.spec as Obj | undefined)?.containers ?? []) as Obj[];
    if (!Array.isArray(containers) || containers.length === 0) {
      throw new ScenarioError(
        [
          {
            field: `${String(r.kind)}/${name} spec.template.spec.containers`,
            value: containers,
            why:
              isRollout && spec.workloadRef
                ? 'the Rollout uses workloadRef, so it has no pod template'
                : 'there is no container',
            fix: 'point the scenario at a manifest whose workload has an inline pod template',
          },
        ],
        source,
      );
    }
    const c = containers[0];
    const res = (c.resources ?? {}) as Obj;
    const out: ManifestSettings = {
      kind: isDeployment ? 'Deployment' : 'Rollout',
      name,
      replicas: typeof spec.replicas === 'number' ? spec.replicas : undefined,
      readiness: readProbe(c.readinessProbe),
      liveness: readProbe(c.livenessProbe),
      cpuRequestCores: parseCpuQuantity(((res.requests ?? {}) as Obj).cpu),
      cpuLimitCores: parseCpuQuantity(((res.limits ?? {}) as Obj).cpu),
    };
    return out;
  }
  throw new ScenarioError(
    [
      {
        field: '(manifest)',
        value: source,
        why: 'no apps/v1 Deployment or argoproj.io/v1alpha1 Rollout in it',
        fix: 'point "manifest" at the synthesized YAML of the service (e.g. dist/<app>.k8s.yaml)',
      },
    ],
    source,
  );
}

function readProbe(p: unknown): ManifestProbe | undefined {
  if (!p || typeof p !== 'object') return undefined;
  const o = p as Obj;
  const n = (k: string, d: number): number => (typeof o[k] === 'number' ? (o[k] as number) : d);
  return {
    // Kubernetes probe defaults when a field is omitted (reference.md).
    periodSeconds: n('periodSeconds', DEFAULTS.probe.periodSeconds),
    timeoutSeconds: n('timeoutSeconds', DEFAULTS.probe.timeoutSeconds),
    failureThreshold: n('failureThreshold', DEFAULTS.probe.failureThreshold),
    successThreshold: n('successThreshold', DEFAULTS.probe.successThreshold),
    handler: o.tcpSocket ? 'tcp' : 'http',
  };
}
