import * as path from 'path';
import { RollwiseInputError } from '../errors';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedName,
  podSecurityLabelProblems,
} from '../schemas/builtin';

/**
 * What Argo CD v3.5.1 and the API server refuse in an Application's source, project and
 * destination, checked on the inputs (Platform.argoCd, ArgoCdApplication's settings) and again on
 * the written Application (escape-hatch patches included).
 */

/**
 * Argo CD's app path rule: util/app/path/path.go Path(root, path) (v3.5.1) refuses an absolute
 * path ("app path is absolute") and one that joined to the repository root leaves it ("app path
 * outside root"); the repo server then fails every manifest generation, so nothing syncs.
 */
export function appPathProblem(p: unknown): string | undefined {
  if (typeof p !== 'string') return 'is not a string';
  if (p.startsWith('/'))
    return (
      `is absolute: Argo CD refuses it ("${p}: app path is absolute", argo-cd v3.5.1 ` +
      'util/app/path/path.go Path), so no manifest is ever generated'
    );
  const joined = path.posix.normalize(path.posix.join('/repo', p));
  if (joined !== '/repo' && !joined.startsWith('/repo/'))
    return (
      `leaves the repository: Argo CD refuses it ("${p}: ` +
      'app path outside root", argo-cd v3.5.1 util/app/path/path.go Path)'
    );
  return undefined;
}

/**
 * An Application names its AppProject by name, and an AppProject is a custom resource, named by a
 * DNS-1123 subdomain (apiextensions-apiserver pkg/registry/customresource/validator.go:
 * ValidateObjectMetaAccessor with NameIsDNSSubdomain): any other name can never exist, and Argo CD
 * finds no project for the Application (util/argo/argo.go GetAppProjectByName: "error getting app
 * project"), so it never syncs.
 */
export function projectProblem(p: unknown): string | undefined {
  if (typeof p !== 'string' || !isDns1123Subdomain(p))
    return (
      'is not a DNS-1123 subdomain, so no AppProject can ' +
      'have this name (custom resource names are DNS subdomains) and Argo CD would find no project for the Application'
    );
  return undefined;
}

/** The destination cluster's API server: an absolute https URL (the rule Environment applies to its destination). */
export function serverProblem(s: unknown): string | undefined {
  if (typeof s !== 'string' || !/^https:\/\/[^\s/]+(\/\S*)?$/.test(s))
    return (
      'is not an absolute https URL: Argo CD ' +
      "needs the destination cluster's API server, and with anything else the Application never syncs"
    );
  return undefined;
}

/**
 * The labels Argo CD puts on the namespace it creates or manages (managedNamespaceMetadata): the
 * API server's label syntax (ValidateLabels) and what the PodSecurity admission plugin accepts on
 * a namespace (pod-security-admission ValidateNamespace); otherwise the namespace is refused and
 * the sync fails before any object is applied.
 */
export function namespaceLabelProblems(labels: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    if (!isQualifiedName(k)) out.push(`the label key "${k}" is not a qualified name`);
    if (typeof v !== 'string' || !isLabelValue(v))
      out.push(`the value of "${k}" (${JSON.stringify(v)}) is not a label value`);
  }
  for (const p of podSecurityLabelProblems(labels)) out.push(`${p.key}: ${p.message}`);
  return out;
}

interface Settings {
  readonly path?: unknown;
  readonly project?: unknown;
  readonly server?: unknown;
  readonly namespace?: unknown;
}

/**
 * Refuses Argo CD settings (Platform.argoCd, or an ArgoCdApplication's settings) that Argo CD or the API server would
 * refuse.
 */
export function checkWhatArgoCdAccepts(input: string, settings: Settings | null): void {
  const s: Settings = settings ?? {};
  const pathProblem = appPathProblem(s.path);
  if (pathProblem)
    throw new RollwiseInputError(
      `${input}.path`,
      s.path as string,
      `${pathProblem}.`,
      'give the output folder relative to the repository root, e.g. "dist" or "dist/prod".',
    );
  if (s.project !== undefined) {
    const p = projectProblem(s.project);
    if (p)
      throw new RollwiseInputError(
        `${input}.project`,
        s.project as string,
        `${p}.`,
        'use the AppProject\'s name, e.g. "default" or "shop".',
      );
  }
  if (s.server !== undefined) {
    const p = serverProblem(s.server);
    if (p)
      throw new RollwiseInputError(
        `${input}.server`,
        s.server as string,
        `${p}.`,
        'use "https://kubernetes.default.svc" for the cluster Argo CD runs in, or the server URL of a cluster ' +
          'registered in Argo CD.',
      );
  }
  if (s.namespace !== undefined && (typeof s.namespace !== 'string' || !isDns1123Label(s.namespace))) {
    throw new RollwiseInputError(
      `${input}.namespace`,
      s.namespace as string,
      "is not a namespace name (a DNS-1123 label): the Application is an object in Argo CD's namespace, and the API " +
        'server refuses it anywhere else.',
      'use the namespace Argo CD watches, e.g. "argocd".',
    );
  }
}
