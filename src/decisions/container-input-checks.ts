/**
 * The checks the pod's inputs share: lists, object names, images, commands and named ports, each
 * refusing bad input with a RollwiseInputError that names the input.
 */
import { NamedPort } from './pod-extras-props';
import { RollwiseInputError } from '../errors';
import { checkPort } from './inputs';

export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** How a value that should have been a list is shown: a factory's object by its class (`an EnvFrom`), else as given. */
function shownNonList(v: unknown): unknown {
  if (typeof v === 'object' && v !== null) {
    const proto = Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null;
    const cls = proto && proto !== Object.prototype ? proto.constructor?.name : undefined;
    if (cls) return `${/^[AEIOU]/.test(cls) ? 'an' : 'a'} ${cls} (not a list)`;
    return `${JSON.stringify(v)} (an object, not a list)`;
  }
  return v;
}

/**
 * A prop that is a list (`envFrom`, `mounts`, `volumes`...): anything else is refused naming it, with the list form as
 * the fix.
 */
export function checkList<T>(input: string, v: T[] | undefined, what: string, example: string): T[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    throw new RollwiseInputError(
      input,
      shownNonList(v),
      `must be a list of ${what}, even for one.`,
      `write it as a list: ${input.split('.').pop()}: [${example}].`,
    );
  }
  return v;
}

export function checkImage(input: string, image: string): void {
  if (typeof image !== 'string' || image.trim() === '' || /\s/.test(image)) {
    throw new RollwiseInputError(
      input,
      image,
      'an image reference must be a non-empty string without spaces.',
      'give the image as registry/repository:tag or @sha256 digest.',
    );
  }
  if (/:latest$/.test(image) || !/[:@]/.test(image.split('/').pop() ?? '')) {
    throw new RollwiseInputError(
      input,
      image,
      'has no tag or uses "latest": the manifest committed to Git would not say which code runs, and a restart could ' +
        'pull different code (docs/mechanisms.md#gitops-rollback).',
      `pin a version tag or a digest, e.g. "${image.replace(/:latest$/, '')}:1.2.3".`,
    );
  }
}

export function checkSubdomain(input: string, v: string, why: string, fix: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 253 || !DNS_SUBDOMAIN.test(v)) {
    throw new RollwiseInputError(
      input,
      v,
      `is not a Kubernetes object name (lower-case DNS subdomain, at most 253 characters): ${why}`,
      fix,
    );
  }
  return v;
}

export function checkStrings(input: string, v: string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new RollwiseInputError(
      input,
      v,
      'must be a list of strings: the kubelet runs it without a shell, one argument per item.',
      `write it as a list, e.g. ${input}: ["gunicorn", "app:app"].`,
    );
  }
  return [...v];
}

export function checkNamedPort(input: string, p: NamedPort): NamedPort {
  if (
    typeof p?.name !== 'string' ||
    p.name.length > 15 ||
    !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p.name) ||
    !/[a-z]/.test(p.name) ||
    p.name.includes('--')
  ) {
    throw new RollwiseInputError(
      `${input}.name`,
      p?.name,
      'a port name must be an IANA service name: at most 15 lower-case letters, digits and "-", with a letter; the ' +
        'API server refuses anything else.',
      'use a name like "metrics".',
    );
  }
  checkPort(`${input}.port`, p.port);
  return { name: p.name, port: p.port };
}
