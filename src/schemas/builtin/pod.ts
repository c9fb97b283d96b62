import { KubernetesVersion } from '../../decisions/kubernetes-version';
import { Add, arr, Json, rec, show } from './common';
import { container, imageReferenceProblem } from './container';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName } from './names';

/**
 * core/v1 pod spec validation (pkg/apis/core/validation/validation.go ValidatePodSpec): volumes, tolerations,
 * node and pod affinity.
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

/**
 * core ValidatePodSpec and what it calls, on a pod spec: `add` for what the API server refuses,
 * `kubelet` for what the kubelet refuses once the pod exists (the image reference).
 * `addedVolumes` are volumes the controller adds to each pod (a StatefulSet's claim templates).
 */
export function podSpec(
  spec: Json,
  path: string,
  add: Add,
  kubelet: Add,
  version: KubernetesVersion,
  addedVolumes: readonly string[],
): void {
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((v, i) => {
    const name = rec(v)?.name;
    if (typeof name !== 'string') return;
    if (!isDns1123Label(name))
      add(`${path}/volumes/${i}/name`, `${show(name)} is not a DNS-1123 label (core: ValidateVolumes)`, name);
    if (volumes.has(name)) add(`${path}/volumes/${i}/name`, `the volume name ${show(name)} is used twice`, name);
    volumes.add(name);
  });
  for (const v of addedVolumes) volumes.add(v);
  const containerNames = new Set<string>();
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      const name = c.name;
      if (typeof name === 'string') {
        if (!isDns1123Label(name)) add(`${cp}/name`, `${show(name)} is not a DNS-1123 label`, name);
        if (containerNames.has(name))
          add(`${cp}/name`, `the container name ${show(name)} is used twice in the pod`, name);
        containerNames.add(name);
      }
      if (typeof c.image === 'string') {
        const problem = imageReferenceProblem(c.image);
        if (problem)
          kubelet(
            `${cp}/image`,
            `the image ${show(c.image)} ${problem}: the pod would fail with InvalidImageName`,
            c.image,
          );
      }
      container(c, cp, volumes, addedVolumes.length > 0, add, version);
    });
  }
  arr(spec.tolerations).forEach((t0, i) => tolerations(rec(t0), `${path}/tolerations/${i}`, add));
  affinity(rec(spec.affinity), `${path}/affinity`, add);
  for (const [k, v] of Object.entries(rec(spec.nodeSelector) ?? {})) {
    if (!isQualifiedName(k))
      add(`${path}/nodeSelector/${k}`, `the node selector key ${show(k)} is not a qualified name`, k);
    if (typeof v === 'string' && !isLabelValue(v))
      add(`${path}/nodeSelector/${k}`, `the node selector value ${show(v)} is not a label value`, v);
  }
  if (
    typeof spec.serviceAccountName === 'string' &&
    spec.serviceAccountName !== '' &&
    !isDns1123Subdomain(spec.serviceAccountName)
  )
    add(
      `${path}/serviceAccountName`,
      `${show(spec.serviceAccountName)} is not a DNS-1123 subdomain`,
      spec.serviceAccountName,
    );
  if (
    typeof spec.priorityClassName === 'string' &&
    spec.priorityClassName !== '' &&
    !isDns1123Subdomain(spec.priorityClassName)
  )
    add(
      `${path}/priorityClassName`,
      `${show(spec.priorityClassName)} is not a DNS-1123 subdomain`,
      spec.priorityClassName,
    );
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** core validateTolerations (unchanged from v1.28.0 to v1.33.0). */
function tolerations(t: Json | undefined, p: string, add: Add): void {
  if (!t) return;
  const key = typeof t.key === 'string' ? t.key : '';
  const op = typeof t.operator === 'string' ? t.operator : '';
  if (key !== '' && !isQualifiedName(key)) add(`${p}/key`, `${show(key)} is not a qualified name (a label key)`, key);
  if (key === '' && op !== 'Exists')
    add(`${p}/operator`, 'operator must be Exists when key is empty (which means "match all values and all keys")');
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute')
    add(`${p}/effect`, 'effect must be NoExecute when tolerationSeconds is set');
  if (op === 'Equal' || op === '') {
    if (typeof t.value === 'string' && !isLabelValue(t.value))
      add(`${p}/value`, `${show(t.value)} is not a label value`, t.value);
  } else if (op === 'Exists') {
    if (typeof t.value === 'string' && t.value !== '') add(`${p}/value`, 'value must be empty when operator is Exists');
  } else add(`${p}/operator`, `${show(op)} is not supported (Equal or Exists)`, op);
  if (typeof t.effect === 'string' && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect))
    add(`${p}/effect`, `${show(t.effect)} is not supported (${TAINT_EFFECTS.join(', ')})`, t.effect);
}

/** core ValidateNodeSelectorRequirement and apimachinery ValidateLabelSelectorRequirement (metav1 validation). */
export function affinity(a: Json | undefined, p: string, add: Add): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const nodeTerms = [
    ...arr(rec(node?.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms).map((t, i) => ({
      t: rec(t),
      at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}`,
    })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      t: rec(rec(w)?.preference),
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference`,
    })),
  ];
  for (const { t, at } of nodeTerms) {
    for (const field of ['matchExpressions', 'matchFields'] as const) {
      arr(t?.[field]).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/${field}/${i}`;
        const values = arr(r.values);
        if (typeof r.key === 'string' && field === 'matchExpressions' && !isQualifiedName(r.key))
          add(`${rp}/key`, `${show(r.key)} is not a qualified name`, r.key);
        switch (r.operator) {
          case 'In':
          case 'NotIn':
            if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
            break;
          case 'Exists':
          case 'DoesNotExist':
            if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
            break;
          case 'Gt':
          case 'Lt':
            if (values.length !== 1 || !/^-?[0-9]+$/.test(String(values[0])))
              add(`${rp}/values`, `must be one integer when operator is ${r.operator}`, values);
            break;
          default:
            add(
              `${rp}/operator`,
              `${show(r.operator)} is not a valid node selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)`,
              r.operator,
            );
        }
      });
    }
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = rec(a[kind]);
    const terms = [
      ...arr(pa?.requiredDuringSchedulingIgnoredDuringExecution).map((t, i) => ({
        t: rec(t),
        at: `${p}/${kind}/requiredDuringSchedulingIgnoredDuringExecution/${i}`,
      })),
      ...arr(pa?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
        t: rec(rec(w)?.podAffinityTerm),
        at: `${p}/${kind}/preferredDuringSchedulingIgnoredDuringExecution/${i}/podAffinityTerm`,
      })),
    ];
    for (const { t, at } of terms) {
      if (!t) continue;
      if (typeof t.topologyKey !== 'string' || !isQualifiedName(t.topologyKey))
        add(`${at}/topologyKey`, `${show(t.topologyKey)} must be a qualified name (a node label key)`, t.topologyKey);
      arr(rec(t.labelSelector)?.matchExpressions).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/labelSelector/matchExpressions/${i}`;
        const values = arr(r.values);
        if (r.operator === 'In' || r.operator === 'NotIn') {
          if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
        } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
          if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
        } else
          add(
            `${rp}/operator`,
            `${show(r.operator)} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
            r.operator,
          );
      });
    }
  }
}

/**
 * Node and pod affinity as core validation.go checks it beyond the operators (read in the stored
 * kubernetes/kubernetes copy; unchanged from 1.28): ValidateNodeSelector wants at least one
 * nodeSelectorTerm when requiredDuringScheduling... is set; ValidateNodeFieldSelectorRequirement
 * allows matchFields only on "metadata.name" (nodeFieldSelectorValidators) with In or NotIn and
 * exactly one value, a node name; ValidatePreferredSchedulingTerms and
 * validateWeightedPodAffinityTerms want each weight in 1-100.
 */
export function podAffinityTerms(a: Json | undefined, p: string, add: (p: string, m: string) => void): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const required = rec(node?.requiredDuringSchedulingIgnoredDuringExecution);
  if (required && arr(required.nodeSelectorTerms).length === 0) {
    add(
      `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms`,
      'must have at least one node selector term (core: ValidateNodeSelector); an empty list matches no node, so no ' +
        'pod could be scheduled',
    );
  }
  const terms = [
    ...arr(required?.nodeSelectorTerms).map((t, i) => ({
      t: rec(t),
      at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}`,
    })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      t: rec(rec(w)?.preference),
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference`,
    })),
  ];
  for (const { t, at } of terms) {
    arr(t?.matchFields).forEach((r0, i) => {
      const r = rec(r0) ?? {};
      const rp = `${at}/matchFields/${i}`;
      if (r.key !== 'metadata.name')
        add(
          `${rp}/key`,
          `${show(r.key)} is not a valid field selector key: node affinity matchFields supports only "metadata.name" ` +
            '(core: ValidateNodeFieldSelectorRequirement)',
        );
      if (['Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(String(r.operator)))
        add(`${rp}/operator`, `${show(r.operator)} is not allowed for a node field selector (In or NotIn)`);
      const values = arr(r.values);
      if ((r.operator === 'In' || r.operator === 'NotIn') && values.length > 1)
        add(`${rp}/values`, `must be exactly one value when operator is ${r.operator} for a node field selector`);
      values.forEach((v, j) => {
        if (r.key === 'metadata.name' && typeof v === 'string' && !isDns1123Subdomain(v))
          add(`${rp}/values/${j}`, `${show(v)} is not a node name (a DNS-1123 subdomain)`);
      });
    });
  }
  const weights: { w: unknown; at: string }[] = [
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      w: rec(w)?.weight,
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight`,
    })),
    ...(['podAffinity', 'podAntiAffinity'] as const).flatMap((k) =>
      arr(rec(a[k])?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
        w: rec(w)?.weight,
        at: `${p}/${k}/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight`,
      })),
    ),
  ];
  for (const { w, at } of weights) {
    if (typeof w === 'number' && !(w >= 1 && w <= 100))
      add(
        at,
        `${w} must be in the range 1-100 (core: ValidatePreferredSchedulingTerms, validateWeightedPodAffinityTerms)`,
      );
  }
}
