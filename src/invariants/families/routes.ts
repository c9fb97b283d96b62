import { arr, rec } from '../../rules/k8s';
import { ofKind, short, v } from './preamble';
import { Invariant, Violation } from './types';

/**
 * INV09: every HTTPRoute names valid hostnames and a parent Gateway.
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

/**
 * Gateway API hostname (HTTPRoute spec.hostnames items): a DNS name, optionally with a leading "*." label, at most 253
 * characters.
 */
const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isGatewayHostname(h: unknown): boolean {
  return typeof h === 'string' && h.length <= 253 && HOSTNAME.test(h) && h.split('.').every((l) => l.length <= 63);
}

export const INV09: Invariant = {
  id: 'INV09-route-hostnames',
  title: 'Every HTTPRoute names its hostnames (valid DNS names) and a parent Gateway',
  why: "A route without hostnames captures every host on the shared Gateway, taking other teams' traffic.",
  overridable: false,
  check(set) {
    const out: Violation[] = [];
    for (const r of ofKind(set, 'HTTPRoute')) {
      const spec = rec(r.spec) ?? {};
      const hosts = arr(spec.hostnames);
      if (hosts.length === 0)
        out.push(v(set, r, 'spec.hostnames', 'the route has no hostnames, so it captures every host on the Gateway'));
      hosts.forEach((h, i) => {
        const host = short(h);
        if (!isGatewayHostname(h))
          out.push(
            v(
              set,
              r,
              `spec.hostnames[${i}]`,
              `${host} is not a DNS hostname (lower case, optionally "*." first, labels of at most 63 and at most ` +
                '253 characters in all)',
            ),
          );
      });
      if (arr(spec.parentRefs).length === 0) out.push(v(set, r, 'spec.parentRefs', 'the route attaches to no Gateway'));
    }
    return out;
  },
};
