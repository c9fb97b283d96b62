import { rec } from '../../rules/k8s';
import { short, v } from './preamble';
import { Invariant, Violation } from './types';

/**
 * INV17: every object's metadata is well formed.
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

export const INV17: Invariant = {
  id: 'INV17-metadata-well-formed',
  title:
    'Every object has a DNS-subdomain name, and labels and annotations that are maps of strings with valid ' +
    'label syntax',
  why:
    'The API server rejects an object whose name, labels or annotations are malformed, at apply time, after the ' +
    'pipeline has passed; Argo CD then shows the whole application as failed to sync.',
  overridable: false,
  check(set) {
    const out: Violation[] = [];
    for (const o of set.objects) {
      const meta = rec(o.metadata);
      if (!meta) {
        out.push(v(set, o, 'metadata', 'the object has no metadata'));
        continue;
      }
      const name = meta.name;
      // Object names are DNS-1123 subdomains as apimachinery checks them (pkg/util/validation,
      // IsDNS1123Subdomain): at most 253 characters matching the label pattern separated by dots,
      // with no 63-character limit per label (that limit is IsDNS1123Label's, for namespaces).
      if (
        typeof name !== 'string' ||
        name.length === 0 ||
        name.length > 253 ||
        !name.split('.').every((l) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l))
      ) {
        out.push(v(set, o, 'metadata.name', `name ${short(name)} is not a DNS subdomain`));
      }
      if (
        meta.namespace !== undefined &&
        (typeof meta.namespace !== 'string' ||
          !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(meta.namespace) ||
          meta.namespace.length > 63)
      ) {
        out.push(v(set, o, 'metadata.namespace', `namespace ${short(meta.namespace)} is not a DNS label`));
      }
      for (const key of ['labels', 'annotations'] as const) {
        const m = meta[key];
        if (m === undefined) continue;
        const r = rec(m);
        if (!r) {
          out.push(v(set, o, `metadata.${key}`, `${key} ${short(m)} is not a map`));
          continue;
        }
        for (const [k, val] of Object.entries(r)) {
          if (!labelKeyOk(k))
            out.push(
              v(
                set,
                o,
                `metadata.${key}["${k}"]`,
                `${short(k)} is not a valid ${key === 'labels' ? 'label' : 'annotation'} key`,
              ),
            );
          if (typeof val !== 'string')
            out.push(v(set, o, `metadata.${key}["${k}"]`, `the value ${short(val)} is not a string`));
          else if (
            key === 'labels' &&
            !(val.length <= 63 && (val === '' || /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(val)))
          ) {
            out.push(v(set, o, `metadata.labels["${k}"]`, `the value ${short(val)} is not a valid label value`));
          }
        }
      }
    }
    return out;
  },
};

/**
 * Kubernetes qualified names (label and annotation keys): optional DNS-subdomain prefix and "/", then 1-63 name
 * characters.
 */
function labelKeyOk(k: string): boolean {
  const i = k.lastIndexOf('/');
  const prefix = i < 0 ? undefined : k.slice(0, i);
  const name = i < 0 ? k : k.slice(i + 1);
  const prefixOk =
    prefix === undefined ||
    (prefix.length > 0 &&
      prefix.length <= 253 &&
      prefix.split('.').every((l) => l.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l)));
  return prefixOk && name.length > 0 && name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}
