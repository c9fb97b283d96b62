import { arr, rec, str } from '../../rules/k8s';
import { allContainers, onPod, POD_KINDS, short, v } from './preamble';
import { Invariant, Violation } from './types';

/**
 * The security invariants: the restricted Pod Security profile (INV12), no service account token (INV13).
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

/**
 * The volume types the restricted profile allows (pod-security-admission policy/check_restrictedVolumes.go
 * restrictedVolumes_1_0).
 */
const RESTRICTED_VOLUME_TYPES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

export const INV12: Invariant = {
  id: 'INV12-restricted-security',
  title:
    'The restricted Pod Security profile: non-root, RuntimeDefault seccomp, no privilege escalation, all ' +
    'capabilities dropped, no host namespaces, ports or paths',
  // The fields of the Pod Security Standards' "restricted" profile (kubernetes.io/docs/concepts/
  // security/pod-security-standards, plus "baseline" for host namespaces, ports and hostPath), as
  // the PodSecurity admission plugin checks them (pod-security-admission policy/check_*.go, read in
  // the stored kubernetes/kubernetes staging copy: check_runAsNonRoot, check_runAsUser,
  // check_allowPrivilegeEscalation, check_capabilities_restricted, check_seccompProfile_restricted,
  // check_restrictedVolumes, check_hostNamespaces, check_hostPorts, check_privileged). rollwise
  // enforces "restricted" on the namespace, so a pod of any kind that breaks one is refused there.
  why:
    'A privileged or root container, host namespaces or hostPath volumes turn one compromised HTTP handler into ' +
    'a compromised node (the restricted Pod Security profile).',
  overridable: false,
  check: onPod(POD_KINDS, (set, { w, pod, base }) => {
    const out: Violation[] = [];
    const psc = rec(pod.securityContext) ?? {};
    for (const k of ['hostNetwork', 'hostPID', 'hostIPC']) {
      if (pod[k] === true) out.push(v(set, w, `${base}.${k}`, `${k} is true`));
    }
    if (psc.runAsUser === 0)
      out.push(v(set, w, `${base}.securityContext.runAsUser`, 'the pod runs as root (runAsUser 0)'));
    arr(pod.volumes).forEach((vol, i) => {
      if (rec(vol)?.hostPath !== undefined)
        out.push(v(set, w, `${base}.volumes[${i}].hostPath`, "a hostPath volume mounts the node's filesystem"));
      else if (!Object.keys(rec(vol) ?? {}).some((k) => RESTRICTED_VOLUME_TYPES.includes(k)))
        out.push(
          v(
            set,
            w,
            `${base}.volumes[${i}]`,
            `volume ${short(rec(vol)?.name)} is not of a type the restricted profile allows ` +
              `(${RESTRICTED_VOLUME_TYPES.join(', ')})`,
          ),
        );
    });
    const podSeccomp = str(rec(psc.seccompProfile)?.type);
    for (const { c, path } of allContainers(pod, base)) {
      const sc = rec(c.securityContext) ?? {};
      const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
      if (nonRoot !== true)
        out.push(
          v(
            set,
            w,
            `${path}.securityContext.runAsNonRoot`,
            `runAsNonRoot is ${short(nonRoot)} (pod and container), not true`,
          ),
        );
      if ((sc.runAsUser ?? psc.runAsUser) === 0)
        out.push(v(set, w, `${path}.securityContext.runAsUser`, 'the container runs as root (runAsUser 0)'));
      if (sc.privileged === true)
        out.push(v(set, w, `${path}.securityContext.privileged`, 'the container is privileged'));
      if (sc.allowPrivilegeEscalation !== false)
        out.push(
          v(
            set,
            w,
            `${path}.securityContext.allowPrivilegeEscalation`,
            `allowPrivilegeEscalation is ${short(sc.allowPrivilegeEscalation)}, not false`,
          ),
        );
      const caps = rec(sc.capabilities) ?? {};
      if (!arr(caps.drop).includes('ALL'))
        out.push(v(set, w, `${path}.securityContext.capabilities.drop`, 'capabilities.drop does not include ALL'));
      const added = arr(caps.add).filter((x) => x !== 'NET_BIND_SERVICE');
      if (added.length > 0)
        out.push(v(set, w, `${path}.securityContext.capabilities.add`, `adds capabilities ${short(added)}`));
      const seccomp = str(rec(sc.seccompProfile)?.type) ?? podSeccomp;
      if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
        out.push(
          v(
            set,
            w,
            `${path}.securityContext.seccompProfile`,
            `seccomp profile ${short(seccomp)} is not RuntimeDefault or Localhost`,
          ),
        );
      arr(c.ports).forEach((p, i) => {
        if (rec(p)?.hostPort !== undefined)
          out.push(v(set, w, `${path}.ports[${i}].hostPort`, "a hostPort binds the node's port"));
      });
    }
    return out;
  }),
};

export const INV13: Invariant = {
  id: 'INV13-no-service-account-token',
  title: 'No service-account token is mounted unless overridden with a reason',
  why: 'An HTTP service that does not call the Kubernetes API must not carry credentials for it.',
  overridable: true,
  check: onPod(POD_KINDS, (set, { w, pod, base }) =>
    pod.automountServiceAccountToken === false
      ? []
      : [
          v(
            set,
            w,
            `${base}.automountServiceAccountToken`,
            `automountServiceAccountToken is ${short(pod.automountServiceAccountToken)} (absent means true)`,
          ),
        ],
  ),
};
