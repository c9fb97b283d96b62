import { ServiceDecisions } from '../decisions/service';
import { WORKLOAD_KINDS } from './service-workloads';

/**
 * The input that set a field of one of the service's (unpatched) objects, as the user wrote it, for
 * the cluster problems found there (render-checks.ts); undefined for fields rollwise decided
 * itself (those are rollwise's bugs, reported as they are).
 */
export function inputOfField(
  o: Record<string, unknown>,
  pointer: string,
  d: ServiceDecisions,
): string | { input: string; pointer: string } | undefined {
  const seg = pointer.split('/').filter(Boolean);
  if (seg.length === 0) {
    // A problem of the whole object (its size above etcd's limit): the input whose value makes it
    // so, when one value is most of the object (a 2 MiB environment value, annotation, label...).
    const big = largestString(o);
    const input = big && big.length >= 256 * 1024 ? inputOfField(o, big.pointer, d) : undefined;
    return typeof input === 'string' ? { input, pointer: big!.pointer } : undefined;
  }
  const at = (...p: string[]) => p.every((x, i) => x === '*' || seg[i] === x);
  if (at('metadata', 'namespace')) return 'namespace';
  if (o.kind === 'HTTPRoute') {
    if (at('spec', 'rules', '*', 'matches')) return 'route.pathPrefix';
    if (at('spec', 'hostnames')) return seg[2] === undefined ? 'route.hostnames' : `route.hostnames[${seg[2]}]`;
    return undefined;
  }
  if (!WORKLOAD_KINDS.includes(String(o.kind))) return undefined;
  if (at('metadata', 'labels')) return 'metadata.labels';
  if (at('metadata', 'annotations')) return 'metadata.annotations';
  if (at('spec', 'template', 'metadata', 'labels')) return 'pod.labels';
  if (at('spec', 'template', 'metadata', 'annotations')) return 'pod.annotations';
  if (!at('spec', 'template', 'spec')) return undefined;
  const [field, index, sub, subIndex] = seg.slice(3);
  const simple: Record<string, string> = {
    tolerations: 'pod.tolerations',
    affinity: 'pod.affinity',
    nodeSelector: 'pod.nodeSelector',
    volumes: 'pod.volumes',
    imagePullSecrets: 'pod.imagePullSecrets',
    serviceAccountName: 'pod.serviceAccount',
    priorityClassName: 'pod.priorityClassName',
  };
  if (simple[field]) return index !== undefined && /^\d+$/.test(index) ? `${simple[field]}[${index}]` : simple[field];
  if (field !== 'containers' && field !== 'initContainers') return undefined;
  const c = (
    (((o.spec as Record<string, unknown>).template as Record<string, unknown>).spec as Record<string, unknown>)[
      field
    ] as { name?: string; env?: { name?: string }[] }[] | undefined
  )?.[Number(index)];
  const name = c?.name;
  const sidecar = d.pod.sidecars.findIndex((x) => x.name === name);
  const init = d.pod.initContainers.findIndex((x) => x.name === name);
  const group =
    name === 'app'
      ? 'container'
      : sidecar >= 0
        ? `sidecars[${sidecar}]`
        : init >= 0
          ? `initContainers[${init}]`
          : undefined;
  if (!group) return undefined;
  const top = name === 'app';
  switch (sub) {
    case 'image':
      return top ? 'image' : `${group}.image`;
    case 'resources':
      return top ? 'resources' : `${group}.resources`;
    case 'env':
      return `${group}.env${c?.env?.[Number(subIndex)]?.name !== undefined ? `.${c.env[Number(subIndex)].name}` : ''}`;
    case 'volumeMounts':
      return subIndex !== undefined ? `${group}.mounts[${subIndex}]` : `${group}.mounts`;
    case 'command':
    case 'args':
    case 'ports':
    case 'envFrom':
      return `${group}.${sub}`;
    case 'name':
      return top ? undefined : `${group}.name`;
    default:
      return undefined;
  }
}

/** The longest string in a JSON value and its JSON pointer. */
function largestString(v: unknown, pointer = '', depth = 0): { pointer: string; length: number } | undefined {
  if (typeof v === 'string') return { pointer, length: v.length };
  if (depth > 32 || v === null || typeof v !== 'object') return undefined;
  let best: { pointer: string; length: number } | undefined;
  for (const [k, x] of Object.entries(v)) {
    const found = largestString(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    if (found && (!best || found.length > best.length)) best = found;
  }
  return best;
}
