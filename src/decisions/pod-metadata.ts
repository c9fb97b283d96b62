// The pod's and the workload's labels and annotations, and the pod's placement (tolerations,
// affinity), as the API server would accept them and without the keys rollwise sets itself.
import type { k8s } from 'cdk8s-plus-28';
import { DNS_SUBDOMAIN } from './container-input-checks';
import { RollwiseInputError } from '../errors';

/** Labels rollwise sets (selectors, revision hashes): a user value would break selection. */
const RESERVED_LABELS = [
  'app.kubernetes.io/name',
  'app.kubernetes.io/managed-by',
  'pod-template-hash',
  'rollouts-pod-template-hash',
];

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function checkLabels(
  input: string,
  labels: Record<string, string> | undefined,
  reservedCheck = true,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) {
    const [prefix, name] = k.includes('/')
      ? [k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)]
      : [undefined, k];
    if ((prefix !== undefined && !DNS_SUBDOMAIN.test(prefix)) || name.length > 63 || !LABEL_NAME.test(name)) {
      throw new RollwiseInputError(
        `${input}`,
        k,
        'is not a label key ([prefix/]name, the name at most 63 letters, digits, "-", "_", "."); the API server ' +
          'refuses it.',
        'use a key like "team" or "acme.com/cost-centre".',
      );
    }
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      throw new RollwiseInputError(
        `${input}.${k}`,
        v,
        'is not a label value (at most 63 letters, digits, "-", "_", ".", starting and ending alphanumeric); the API ' +
          'server refuses it.',
        'shorten it or move it to an annotation.',
      );
    }
    if (reservedCheck && RESERVED_LABELS.includes(k)) {
      throw new RollwiseInputError(
        `${input}.${k}`,
        v,
        'rollwise sets this label itself: the Service, PodDisruptionBudget and spread constraints select pods by it ' +
          '(or a controller sets it per revision), so another value would leave the pods unselected.',
        `remove ${k} from ${input}.`,
      );
    }
    out[k] = v;
  }
  return out;
}

/** The API server's toleration rules (operator Equal or Exists; Exists takes no value; known effects). */
export function checkTolerations(list: k8s.Toleration[] | undefined): k8s.Toleration[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list))
    throw new RollwiseInputError(
      'pod.tolerations',
      list,
      'must be a list of tolerations.',
      'pass tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }].',
    );
  list.forEach((t, i) => {
    const at = `pod.tolerations[${i}]`;
    const op = t?.operator ?? 'Equal';
    if (op !== 'Equal' && op !== 'Exists')
      throw new RollwiseInputError(
        `${at}.operator`,
        t?.operator,
        'the API server accepts only "Equal" and "Exists".',
        'use operator: "Equal" with a value, or "Exists" without one.',
      );
    if (op === 'Exists' && t.value !== undefined && t.value !== '')
      throw new RollwiseInputError(
        `${at}.value`,
        t.value,
        'with operator "Exists" the value must be empty (the API server refuses the pod): Exists matches any value of ' +
          'the key.',
        'remove value, or use operator: "Equal".',
      );
    if (t.effect !== undefined && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      throw new RollwiseInputError(
        `${at}.effect`,
        t.effect,
        'is not a taint effect; the API server accepts NoSchedule, PreferNoSchedule and NoExecute.',
        'use the effect of the taint you tolerate, e.g. "NoSchedule".',
      );
    }
    if (t.key === undefined && op !== 'Exists')
      throw new RollwiseInputError(
        `${at}.key`,
        'unset',
        'a toleration without a key must use operator "Exists" (it then tolerates every taint, which is rarely meant).',
        "give the taint's key.",
      );
  });
  return list;
}

export function checkAffinity(a: k8s.Affinity | undefined): k8s.Affinity | undefined {
  if (a === undefined) return undefined;
  if (
    typeof a !== 'object' ||
    a === null ||
    Array.isArray(a) ||
    Object.keys(a).some((k) => !['nodeAffinity', 'podAffinity', 'podAntiAffinity'].includes(k))
  ) {
    throw new RollwiseInputError(
      'pod.affinity',
      a,
      'must be an object with nodeAffinity, podAffinity or podAntiAffinity; anything else is pruned by the API ' +
        'server and the placement silently lost.',
      'write it as in the Pod spec, e.g. { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: ... } }.',
    );
  }
  return a;
}

export function checkAnnotations(
  input: string,
  annotations: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations ?? {})) {
    if (k.startsWith('rollwise.dev/')) {
      throw new RollwiseInputError(
        `${input}.${k}`,
        v,
        'rollwise.dev/ annotations carry the reasons, overrides and measured facts the lint rules read; a ' +
          'hand-written one would be trusted as a fact.',
        'use your own prefix, e.g. "acme.com/owner".',
      );
    }
    if (typeof v !== 'string')
      throw new RollwiseInputError(`${input}.${k}`, v, 'an annotation value must be a string.', 'quote it.');
    out[k] = v;
  }
  return out;
}
