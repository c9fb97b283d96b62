import * as path from 'path';
import { ApiObject, Chart, Names } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { Application } from '../../imports/application-argoproj.io';
import { decideApplicationSync } from '../decisions/argo-cd-sync';
import { checkName } from '../decisions/inputs';
import { ArgoCdSettings, checkArgoCdSettings } from '../decisions/platform';
import { checkKeys, keysOf } from '../decisions/props-keys';
import { inService, RollwiseInputError } from '../errors';
import { Reasons } from '../justify/reasons';
import { HttpService } from './http-service';
import { decideNamespace, NamespacePolicy, objectsThePodNeeds } from '../decisions/namespaces';
import { declaredOutputPath } from '../synth/layout';
import { rec, str } from '../rules/k8s';
import { RenderedApp, registerRenderCheck } from '../synth/render-checks';
import { registerNamespaceMetadata } from '../invariants/conflicts';
import { registerDecidedValuesCheck } from '../invariants/decided-values';
import { appPathProblem, namespaceLabelProblems, projectProblem, serverProblem } from '../checks/argo-cd-spec';

export interface ArgoCdApplicationProps {
  /** The service whose committed manifests this Application applies. */
  readonly service: HttpService;
  /** Repository, revision, path and destination. */
  readonly settings: ArgoCdSettings;
  /**
   * The service's manifest file(s) inside `settings.path` (a glob), e.g. "checkout-api.k8s.yaml".
   * @default the file name of the service's chart (its declared output path, e.g. "prod/checkout-api.k8s.yaml" ->
   * "checkout-api.k8s.yaml", else the name cdk8s gives the chart)
   */
  readonly include?: string;
  /**
   * Destination namespace; it must be the service's, so that the objects, the traffic-router
   * plugin's config, the analysis queries and the alerts all name the namespace Argo CD applies to.
   * @default the service's namespace
   */
  readonly destinationNamespace?: string;
  /**
   * How the destination namespace comes to exist, with its Pod Security labels.
   * @default settings.namespaces, else NamespacePolicy.createdByArgoCd() (CreateNamespace=true, enforcing "restricted")
   */
  readonly namespacePolicy?: NamespacePolicy;
}

/**
 * The label naming the service on each of its Applications (one per environment), for selectors such as Backstage's
 * argocd/app-selector.
 */
export const SERVICE_LABEL = 'rollwise.dev/service';

/**
 * The Argo CD Application for one service: automated sync with self-heal and prune, applying only
 * the service's own committed file, ignoring the fields controllers change at runtime. The rollback
 * is `git revert` (docs/mechanisms.md#gitops-rollback). The object is named after the construct id.
 */
export class ArgoCdApplication extends Construct {
  public readonly application: ApiObject;

  constructor(scope: Construct, id: string, props: ArgoCdApplicationProps) {
    super(scope, id);
    checkApplicationProps(scope, id, props);
    registerDecidedValuesCheck(this);
    // Every error names the service and where its Application is declared.
    try {
      const name = checkName('id', id);
      const s = props.settings;
      const svc = props.service;
      const destNs = props.destinationNamespace ?? svc.namespace;
      if (!destNs)
        throw new RollwiseInputError(
          'destinationNamespace',
          'unset',
          'the service has no namespace and none was given: Argo CD would apply into its own namespace.',
          'give the chart a namespace or set destinationNamespace.',
        );
      if (svc.namespace !== undefined && destNs !== svc.namespace) {
        throw new RollwiseInputError(
          'destinationNamespace',
          destNs,
          `the service's objects name namespace ${svc.namespace}, and Argo CD applies an object with a namespace ` +
            `there, not into the destination: the Application would report ${destNs} while the objects, the ` +
            `traffic-router plugin's config, the analysis queries and the alerts all use ${svc.namespace} (and ` +
            'CreateNamespace would create the wrong one).',
          `remove destinationNamespace, or give the service's chart the namespace ${destNs}.`,
        );
      }
      const include = props.include ?? serviceFile(svc);
      // The migration Job is the service's PreSync hook: what its pod needs must exist before the first sync.
      const job = svc.migration?.job.toJson() as
        | { metadata?: { name?: string }; spec?: { activeDeadlineSeconds?: number; template?: { spec?: unknown } } }
        | undefined;
      const preSync = job
        ? {
            hook: `migration Job ${job.metadata?.name ?? ''}`,
            needs: objectsThePodNeeds(job.spec?.template?.spec),
            deadlineSeconds: job.spec?.activeDeadlineSeconds,
          }
        : undefined;
      const policyInput =
        props.namespacePolicy !== undefined
          ? 'namespacePolicy'
          : s.namespaces !== undefined
            ? 'argoCd.namespaces'
            : 'namespacePolicy (default)';
      const ns = decideNamespace(
        destNs,
        props.namespacePolicy ?? s.namespaces ?? NamespacePolicy.createdByArgoCd(),
        svc.platform.kubernetesVersion,
        preSync,
        policyInput,
      );
      if (!/^(https?|ssh):\/\/|^git@/.test(s.repoURL))
        throw new RollwiseInputError(
          'argoCd.repoURL',
          s.repoURL,
          'is not a Git URL Argo CD can clone.',
          'use e.g. "https://github.com/acme/deploy.git".',
        );
      const sync = decideApplicationSync({
        include,
        includeGiven: props.include !== undefined,
        path: s.path,
        destinationNamespace: destNs,
        namespace: ns,
        serviceName: svc.name,
        canary: svc.canary !== undefined,
        replicasOwnedByAutoscaler: svc.replicasOwnedByAutoscaler,
        workload: { apiVersion: svc.workload.apiVersion, kind: svc.workload.kind },
      });
      const r = new Reasons();
      const spec = {
        project: s.project ?? 'default',
        source: {
          repoURL: s.repoURL,
          targetRevision: s.targetRevision ?? 'main',
          path: s.path,
          directory: { include: r.use('spec.source.directory.include', sync.include) },
        },
        destination: { server: s.server ?? 'https://kubernetes.default.svc', namespace: destNs },
        syncPolicy: {
          automated: r.use('spec.syncPolicy.automated', sync.automated),
          syncOptions: r.use('spec.syncPolicy.syncOptions', sync.syncOptions),
          ...(ns.labels
            ? {
                managedNamespaceMetadata: {
                  labels: r.use('spec.syncPolicy.managedNamespaceMetadata.labels', ns.labels),
                },
              }
            : {}),
        },
        ...(sync.ignoreDifferences
          ? { ignoreDifferences: r.use('spec.ignoreDifferences', sync.ignoreDifferences) }
          : {}),
      };
      const frozen = arrayFreezingIgnores(spec);
      if (frozen.length) throw new Error(`ArgoCdApplication ${name}: ${frozen.join('; ')}`);
      this.application = new ApiObject(this, 'application', {
        ...Application.GVK,
        metadata: {
          name,
          namespace: s.namespace ?? 'argocd',
          labels: { 'app.kubernetes.io/managed-by': 'rollwise', [SERVICE_LABEL]: svc.name },
          annotations: r.annotations(),
        },
        spec,
      });
      // Checked like the rest, on what is written (escape-hatch patches included).
      // Every Application into one namespace must keep the same labels on it (invariants/conflicts.ts),
      // compared as written.
      if (ns.labels)
        registerNamespaceMetadata(this, {
          service: svc.node.path,
          server: spec.destination.server,
          namespace: destNs,
          labels: ns.labels.value,
          object: this.application,
        });
      registerRenderCheck(this, (rendered) => checkApplication(rendered, this.application, svc, include), {
        validateObjects: true,
      });
    } catch (e) {
      throw inService(e, props.service?.name ?? String(props.service), this.node.path);
    }
    registerApplicationNames(this);
  }
}

const APPLICATION_PROPS_KEYS = keysOf<ArgoCdApplicationProps>()({
  service: true,
  settings: true,
  include: true,
  destinationNamespace: true,
  namespacePolicy: true,
});

/**
 * The props as a JavaScript caller may pass them (known keys, the service an HttpService, the
 * settings complete), and where the Application goes: not in the chart of the service it applies,
 * whose file it would then apply (and prune) itself from.
 */
function checkApplicationProps(scope: Construct, id: string, props: ArgoCdApplicationProps): void {
  checkKeys('props', props, APPLICATION_PROPS_KEYS, `new ArgoCdApplication(scope, '${id}', props)`);
  if (props === undefined)
    throw new RollwiseInputError(
      'props',
      'undefined',
      `is the third argument of new ArgoCdApplication(scope, '${id}', props): the service and its Argo CD settings.`,
      'pass { service, settings: service.platform.argoCd }.',
    );
  if (!(props.service instanceof HttpService)) {
    throw new RollwiseInputError(
      'service',
      props.service === undefined
        ? 'unset'
        : props.service === null
          ? null
          : typeof props.service === 'object'
            ? 'a plain object'
            : props.service,
      'must be the HttpService whose committed manifests the Application applies.',
      'pass the construct: { service: myService, settings: myService.platform.argoCd }.',
    );
  }
  // named as the user most likely wrote them: the platform's settings, or their own object
  checkArgoCdSettings(
    props.settings === props.service.platform.argoCd && props.settings !== undefined ? 'platform.argoCd' : 'settings',
    props.settings,
  );
  const own = Chart.of(props.service);
  for (let c: IConstruct | undefined = scope; c; c = c.node.scope) {
    if (c !== own) continue;
    throw new RollwiseInputError(
      'scope',
      scope.node.path,
      `is (in) the chart ${own.node.path} of the service ${props.service.name}, so the Application would be written ` +
        `into the service's own file, which it applies: Argo CD would apply the Application from inside the folder ` +
        'it syncs and manage (and prune) itself. The Application is kept outside the folder it applies.',
      `create it in a chart of its own, whose file the Application's include does not select, e.g. new ` +
        `ArgoCdApplication(new Chart(app, '${id}-argocd'), '${id}', props) (the environments write theirs to ` +
        'argocd/<env>/, outside the folders they apply).',
    );
  }
}

/**
 * Go's path.Match-style glob (`*`, `?`, `[...]`, and `{a,b}` as Argo CD's include allows) as a RegExp over one file
 * name.
 */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((a) =>
            a
              .replace(/[.+^$()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
          )
          .join('|')})`;
        i = end;
      }
    } else if (c === '[') {
      const end = glob.indexOf(']', i);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, end).replace(/^!/, '^')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function checkApplication(r: RenderedApp, application: ApiObject, svc: HttpService, include: string): string[] {
  const written = r.objectsOf(application).find((x) => x.apiObject === application)?.json;
  if (!written)
    return [
      `Application ${application.name}: not in the output (a chart's own toJson() dropped it), so ` +
        `the service is never deployed. Fix: keep the Application in the chart's output.`,
    ];
  const spec = rec(written.spec) ?? {};
  const out: string[] = [];
  const name = `Application ${application.name}`;
  // A decided field a patch changed (self-heal and prune, the sync options, the ignore rules, the
  // include, the namespace's labels) is refused by INV01, which runs on every object of the app
  // (invariants/decided-values.ts).
  // What Argo CD and the API server refuse, on the written Application (a patch may have set it).
  const source = rec(spec.source) ?? {};
  const dest = rec(spec.destination) ?? {};
  const pathProblem = appPathProblem(source.path);
  const sourcePath = String(source.path);
  if (pathProblem)
    out.push(
      `${name} spec.source.path: "${sourcePath}" ${pathProblem}. Fix: point it at the output folder, relative ` +
        'to the repository root (e.g. "dist/prod").',
    );
  const projProblem = projectProblem(spec.project ?? 'default');
  const project = JSON.stringify(spec.project);
  if (projProblem)
    out.push(
      `${name} spec.project: ${project} ${projProblem}. Fix: name an AppProject that exists (e.g. ` + '"default").',
    );
  const srvProblem = serverProblem(dest.server);
  if (srvProblem)
    out.push(
      `${name} spec.destination.server: ${JSON.stringify(dest.server)} ${srvProblem}. Fix: use ` +
        `"https://kubernetes.default.svc" or a registered cluster's server URL.`,
    );
  // The namespace consistency rule of the constructor (destinationNamespace), on what is written:
  // objects that name their namespace are applied there, whatever the destination says, and
  // CreateNamespace and the managed labels would go to the destination.
  if (svc.namespace !== undefined && dest.namespace !== svc.namespace) {
    out.push(
      `${name} spec.destination.namespace: ${JSON.stringify(dest.namespace)} is not the service's ` +
        `namespace ${svc.namespace}: Argo CD applies the service's objects into ${svc.namespace} (they name it), ` +
        'while CreateNamespace and the Pod Security labels (managedNamespaceMetadata) go to the destination, ' +
        `so ${svc.namespace} would run without the labels rollwise decided. Fix: remove the patch of ` +
        `spec.destination.namespace, or give the service's chart that namespace.`,
    );
  }
  const labels = rec(rec(rec(spec.syncPolicy)?.managedNamespaceMetadata)?.labels);
  for (const p of labels ? namespaceLabelProblems(labels) : []) {
    out.push(
      `${name} spec.syncPolicy.managedNamespaceMetadata.labels: ${p}; Argo CD creates or updates the namespace with ` +
        'these labels and the API server refuses it, so the sync fails before any object is applied. Fix: keep valid ' +
        'labels (enforce: privileged, baseline or restricted).',
    );
  }
  for (const msg of arrayFreezingIgnores(spec as Parameters<typeof arrayFreezingIgnores>[0]))
    out.push(`${name}: ${msg}. Fix: remove RespectIgnoreDifferences=true.`);
  // `include` must select exactly the service's own file, as it is written
  const file = r.fileOf(Chart.of(svc));
  const writtenInclude = str(rec(rec(spec.source)?.directory)?.include) ?? include;
  if (file !== undefined) {
    const dir = path.posix.dirname(file);
    const re = globRegExp(writtenInclude);
    const own = path.posix.basename(file);
    if (!re.test(own))
      out.push(
        `${name} spec.source.directory.include: "${writtenInclude}" does not match the service's own file ${file}, so ` +
          `Argo CD would apply none of its objects. Fix: include "${own}".`,
      );
    const others = r.files.filter(
      (f) => f !== file && path.posix.dirname(f) === dir && re.test(path.posix.basename(f)),
    );
    if (others.length > 0)
      out.push(
        `${name} spec.source.directory.include: "${writtenInclude}" also matches ${others.join(', ')}, so this ` +
          `Application would apply (and prune) other services' objects. Fix: include "${own}".`,
      );
    const srcPath = str(rec(spec.source)?.path) ?? '';
    if (dir !== '.' && !`/${srcPath.replace(/\/+$/, '')}`.endsWith(`/${dir}`))
      out.push(
        `${name} spec.source.path: "${srcPath}" is not the folder the service's file is written to (${dir}/ in the ` +
          `output). Fix: point the path at the output's ${dir}/ folder (e.g. "dist/${dir}").`,
      );
  }
  return out;
}

const applicationRoots = new WeakSet<IConstruct>();

/** Application names are unique per Argo CD namespace: the second apply replaces the first. */
function registerApplicationNames(scope: Construct): void {
  const root = scope.node.root;
  if (applicationRoots.has(root)) return;
  applicationRoots.add(root);
  registerRenderCheck(root as Construct, (r) => {
    const seen = new Map<string, string>();
    const out: string[] = [];
    for (const { chart, json } of r.objects) {
      if (json.kind !== 'Application' || !String(json.apiVersion).startsWith('argoproj.io/')) continue;
      const meta = rec(json.metadata) ?? {};
      const key = `${str(meta.namespace) ?? 'argocd'}/${str(meta.name) ?? ''}`;
      const prev = seen.get(key);
      if (prev !== undefined)
        out.push(
          `Application ${key}: written by both ${prev} and ${chart.node.path}; Argo CD keeps one Application per name ` +
            'in its namespace, so one service would never deploy. Fix: give the Applications different construct ids ' +
            '(e.g. <service>-<environment>).',
        );
      else seen.set(key, chart.node.path);
    }
    return out;
  });
}

interface IgnoreRule {
  readonly kind?: string;
  readonly jqPathExpressions?: readonly string[];
  readonly jsonPointers?: readonly string[];
}

/**
 * The ignore rules that would freeze a whole array in sync: with `RespectIgnoreDifferences=true`,
 * Argo CD copies the ignored fields of a custom resource from live into the object it applies with
 * a JSON merge patch (controller/sync.go normalizeTargetResources, v3.5.1; restoreNonIgnoredFields
 * walks maps only), and a merge patch replaces arrays whole (RFC 7386), so a rule on an array
 * element (jq `[]` or `[n]`, a numeric JSON pointer segment) makes the whole live array win over
 * Git (argo-cd#17694, #25284). Empty when the Application is safe.
 */
export function arrayFreezingIgnores(spec: {
  syncPolicy?: { syncOptions?: readonly string[] };
  ignoreDifferences?: readonly IgnoreRule[];
}): string[] {
  if (!(spec.syncPolicy?.syncOptions ?? []).includes('RespectIgnoreDifferences=true')) return [];
  const out: string[] = [];
  for (const rule of spec.ignoreDifferences ?? []) {
    const kind = rule.kind ?? '?';
    for (const jq of rule.jqPathExpressions ?? []) {
      if (/\[/.test(jq))
        out.push(
          `${kind} jqPathExpression ${jq} names an array element while RespectIgnoreDifferences=true: Argo ` +
            `CD would apply the whole live array instead of Git's`,
        );
    }
    for (const ptr of rule.jsonPointers ?? []) {
      if (/\/(\d+|-)(\/|$)/.test(ptr))
        out.push(
          `${kind} jsonPointer ${ptr} names an array element while RespectIgnoreDifferences=true: Argo CD ` +
            `would apply the whole live array instead of Git's`,
        );
    }
  }
  return out;
}

/**
 * The file name of the service's chart: its declared output path (environments declare
 * "<env>/<service>.k8s.yaml"), else the name `cdk8s synth` gives a chart (Names.toDnsLabel plus the
 * app's extension, cdk8s lib/app.js SimpleChartNamer). Argo CD matches `directory.include` against
 * the file's path relative to the Application's path (reposerver/repository/repository.go
 * getPotentiallyValidManifestFile, v3.5.1), and the path is the environment's folder.
 */
function serviceFile(svc: HttpService): string {
  const chart = Chart.of(svc);
  const declared = declaredOutputPath(chart);
  const extension = (chart.node.root as { outputFileExtension?: string }).outputFileExtension ?? '.k8s.yaml';
  const file = declared ?? `${Names.toDnsLabel(chart)}${extension}`;
  return file.split('/').pop() as string;
}
