// The pod's volumes and a container's mounts of them; an emptyDir is capped by its sizeLimit.
import { ExtraContainerDecisions, Mount, Volume } from './pod-extras-props';
import { RollwiseInputError } from '../errors';
import { checkList, checkSubdomain, DNS_LABEL } from './container-input-checks';

const RESERVED_VOLUME = 'tmp';

export function checkVolumes(vols: Volume[]): Volume[] {
  const seen = new Set<string>([RESERVED_VOLUME]);
  return vols.map((v, i) => {
    if (!(v instanceof Volume))
      throw new RollwiseInputError(
        `pod.volumes[${i}]`,
        v,
        'must be a Volume.',
        'use Volume.fromSecret(...), Volume.fromConfigMap(...), Volume.emptyDir(...) or ' +
          'Volume.fromPersistentVolumeClaim(...).',
      );
    if (typeof v.name !== 'string' || v.name.length > 63 || !DNS_LABEL.test(v.name) || seen.has(v.name)) {
      throw new RollwiseInputError(
        `pod.volumes[${i}].name`,
        v.name,
        `a volume name must be a DNS label, unique in the pod; "${RESERVED_VOLUME}" is the writable /tmp rollwise ` +
          'mounts.',
        'use a short name like "tls".',
      );
    }
    seen.add(v.name);
    if (v.kind === 'emptyDir') {
      if (!/^\d+(Ki|Mi|Gi)$/.test(v.source))
        throw new RollwiseInputError(
          `pod.volumes[${i}].sizeLimit`,
          v.source,
          'must be a size with a binary unit; the kubelet evicts the pod when the volume grows past it.',
          'use e.g. "256Mi".',
        );
    } else {
      checkSubdomain(
        `pod.volumes[${i}]`,
        v.source,
        'it names the object the volume reads.',
        'give the object\'s name, e.g. "checkout-tls".',
      );
    }
    return v;
  });
}

export function renderVolume(v: Volume): Record<string, unknown> {
  switch (v.kind) {
    case 'emptyDir':
      return { name: v.name, emptyDir: { sizeLimit: v.source } };
    case 'secret':
      return { name: v.name, secret: { secretName: v.source } };
    case 'configMap':
      return { name: v.name, configMap: { name: v.source } };
    case 'pvc':
      return { name: v.name, persistentVolumeClaim: { claimName: v.source } };
  }
}

export function checkMounts(
  input: string,
  mounts: Mount[] | undefined,
  volumes: Map<string, Volume['kind']>,
): ExtraContainerDecisions['mounts'] {
  const paths = new Set<string>(['/tmp']);
  return checkList(input, mounts, 'mounts', '{ volume: "config", path: "/etc/config" }').map((m, i) => {
    const kind = volumes.get(m?.volume);
    if (kind === undefined) {
      throw new RollwiseInputError(
        `${input}[${i}].volume`,
        m?.volume,
        `is not one of pod.volumes (${[...volumes.keys()].join(', ') || 'none'}); the API server refuses a mount of ` +
          'an undeclared volume.',
        'declare it in pod.volumes, e.g. Volume.fromSecret("tls", "checkout-tls").',
      );
    }
    if (
      typeof m.path !== 'string' ||
      !m.path.startsWith('/') ||
      /\s|:/.test(m.path) ||
      m.path.split('/').includes('..') ||
      paths.has(m.path.replace(/\/+$/, ''))
    ) {
      throw new RollwiseInputError(
        `${input}[${i}].path`,
        m.path,
        'a mount path must be absolute, without ".." or ":", and not used twice in the container; /tmp is already ' +
          'the writable scratch space.',
        'use a path like "/etc/tls".',
      );
    }
    paths.add(m.path.replace(/\/+$/, ''));
    if (m.readOnly !== undefined && typeof m.readOnly !== 'boolean') {
      throw new RollwiseInputError(
        `${input}[${i}].readOnly`,
        m.readOnly,
        'must be true or false: any other value would be read as one of them without saying which.',
        `use readOnly: true (or false), or leave it out for the default (read-only for Secret and ConfigMap volumes).`,
      );
    }
    const readOnly = m.readOnly ?? (kind === 'secret' || kind === 'configMap');
    return { name: m.volume, mountPath: m.path, ...(readOnly ? { readOnly: true } : {}) };
  });
}
