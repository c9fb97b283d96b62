/**
 * The Argo Rollouts controller's checks on one Rollout and the objects synthesized with it, as
 * messages. The checks themselves are in ./controller-spec.ts (ported from the controller at
 * v1.9.1); lint and synth run them as the RW7xx rules of src/rules/controller-rules.ts.
 */
import { checkController, ObjectLookup } from './controller-spec';

type Obj = { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string }; spec?: unknown };

/** Looks up `objects` by kind, namespace and name (a manifest without a namespace matches any). */
export function lookupIn(objects: readonly Obj[]): ObjectLookup {
  return {
    get(kind, namespace, name) {
      const same = objects.filter((o) => o.kind === kind && o.metadata?.name === name);
      const found =
        same.find((o) => (o.metadata?.namespace || undefined) === namespace) ??
        same.find((o) => !o.metadata?.namespace || namespace === undefined);
      return found as Record<string, unknown> | undefined;
    },
    list(kind, namespace) {
      return objects.filter(
        (o) =>
          o.kind === kind && (!o.metadata?.namespace || namespace === undefined || o.metadata.namespace === namespace),
      ) as Record<string, unknown>[];
    },
  };
}

/**
 * What the controller (and the Gateway API plugin, for rollwise's own RW78x rules) would refuse in
 * `rollout` and in the analysis templates it references: one message per finding, naming the
 * object and the field path. `objects` are the other manifests synthesized with it.
 */
export function checkRolloutSpec(rollout: Obj, objects: readonly Obj[]): string[] {
  const lookup = lookupIn(objects);
  const line = (what: string, f: { path: string; message: string }) =>
    `${what}: ${f.message.startsWith(f.path) ? '' : `${f.path}: `}${f.message}`;
  const out = checkController(rollout as Record<string, unknown>, lookup).map((f) =>
    line(`Rollout ${rollout.metadata?.name}`, f),
  );
  const seen = new Set<string>();
  for (const ref of templateRefs(rollout)) {
    const kind = ref.clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
    const t = lookup.get(
      kind,
      ref.clusterScope ? undefined : rollout.metadata?.namespace || undefined,
      ref.templateName,
    );
    if (!t || seen.has(`${kind}/${ref.templateName}`)) continue;
    seen.add(`${kind}/${ref.templateName}`);
    out.push(...checkController(t, lookup).map((f) => line(`${kind} ${ref.templateName}`, f)));
  }
  return out;
}

function templateRefs(rollout: Obj): { templateName: string; clusterScope?: boolean }[] {
  const canary = (
    rollout.spec as
      | {
          strategy?: {
            canary?: { analysis?: { templates?: unknown[] }; steps?: { analysis?: { templates?: unknown[] } }[] };
          };
        }
      | undefined
  )?.strategy?.canary;
  const refs = [
    ...(canary?.analysis?.templates ?? []),
    ...(canary?.steps ?? []).flatMap((s) => s?.analysis?.templates ?? []),
  ];
  return refs.filter(
    (r): r is { templateName: string; clusterScope?: boolean } =>
      typeof (r as { templateName?: unknown })?.templateName === 'string',
  );
}
