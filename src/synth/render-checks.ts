import { ApiObject, App, Chart } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { isRenderingPatch, patchFailure } from '../invariants/final-objects';
import { inService, RollwiseInputError } from '../errors';
import { ClusterValidator, findSchemaDir, formatClusterProblem } from '../schemas/cluster-validator';
import { Pass } from '../schemas/structural';
import { addSynthWarning } from './output';
import { schemaDirCandidates, SCHEMA_FIX } from '../schemas/locate';
import { RenderedApp } from './rendered-app';

export type { RenderedApp } from './rendered-app';

type Json = Record<string, unknown>;

/** A check on the rendered app: returns one message per problem, prefixed by the caller with its construct path. */
export type RenderCheck = (r: RenderedApp) => string[];

interface Registered {
  readonly scope: Construct;
  readonly check: RenderCheck;
}

const checks = new WeakMap<IConstruct, Registered[]>();
const rendering = new WeakSet<IConstruct>();

/**
 * Registers a check of `scope` on the rendered app. Under a plain `App.synth()` it runs as the
 * scope's cdk8s validation on `ownRender(scope)` instead.
 */
export function registerRenderCheck(
  scope: Construct,
  check: RenderCheck,
  opts: { readonly validateObjects?: boolean } = {},
): void {
  const root = scope.node.root;
  let list = checks.get(root);
  if (!list) checks.set(root, (list = []));
  list.push({ scope, check });
  scope.node.addValidation({
    validate: () => {
      if (rendering.has(root)) return [];
      const own = ownRender(scope);
      // under rollwise's renderer every written object is validated once (runRenderChecks); here
      // the scope validates its own objects
      return [...check(own), ...(opts.validateObjects ? clusterProblems(scope, own, false) : [])];
    },
  });
}

/** The checks registered in an app. */
export function renderChecksOf(app: App): readonly Registered[] {
  return checks.get(app.node.root) ?? [];
}

/** Marks an app as being rendered by rollwise (its render checks then run on the one render). */
export function beginRender(app: App): () => void {
  rendering.add(app.node.root);
  return () => rendering.delete(app.node.root);
}

function key(o: Json): string {
  const meta = (o.metadata ?? {}) as Json;
  const [apiVersion, kind] = [String(o.apiVersion), String(o.kind)];
  const [namespace, name] = [String(meta.namespace ?? ''), String(meta.name ?? '')];
  return `${apiVersion}\u0000${kind}\u0000${namespace}\u0000${name}`;
}

/** Builds the lookup over one pass's render. */
export function renderedApp(
  objects: { chart: Chart; json: Json; apiObject?: ApiObject }[],
  chartFiles: ReadonlyMap<Chart, string> = new Map(),
): RenderedApp {
  const byObject = new Map<ApiObject, Json>();
  const byKey = new Map<Chart, Map<string, Json>>();
  for (const o of objects) {
    if (o.apiObject) byObject.set(o.apiObject, o.json);
    else {
      let m = byKey.get(o.chart);
      if (!m) byKey.set(o.chart, (m = new Map<string, Json>()));
      m.set(key(o.json), o.json);
    }
  }
  // One lookup per scope and render: a service's objects are asked for by several checks (its own,
  // the invariants, the app-wide conflict and duplicate checks), each of which walked the
  // service's construct tree again (measured: 0.33 s of a 1,000-service synth's CPU profile). The
  // render is one pass's and the checks do not add constructs, so the answer does not change
  // within the pass; each caller gets its own copy of the list.
  const memo = new Map<Construct, { apiObject: ApiObject; json: Json }[]>();
  return {
    objects,
    files: [...chartFiles.values()],
    fileOf: (chart) => chartFiles.get(chart),
    objectsOf(scope) {
      let found = memo.get(scope);
      if (!found) memo.set(scope, (found = lookUp(scope)));
      return [...found];
    },
  };

  function lookUp(scope: Construct): { apiObject: ApiObject; json: Json }[] {
    const out: { apiObject: ApiObject; json: Json }[] = [];
    for (const c of scope.node.findAll()) {
      if (!(c instanceof ApiObject)) continue;
      const direct = byObject.get(c);
      if (direct) {
        out.push({ apiObject: c, json: direct });
        continue;
      }
      let own: Json | undefined;
      try {
        own = c.toJson() as Json;
      } catch {
        own = undefined;
      }
      const viaKey = own && byKey.get(Chart.of(c))?.get(key(own));
      if (viaKey) out.push({ apiObject: c, json: viaKey });
    }
    return out;
  }
}

/** A render of `scope`'s chart(s) for the plain-App fallback (the chart's own toJson() where it has one). */
export function ownRender(scope: Construct): RenderedApp {
  const charts = new Set<Chart>();
  for (const c of scope.node.findAll()) if (c instanceof ApiObject) charts.add(Chart.of(c));
  const objects: { chart: Chart; json: Json; apiObject?: ApiObject }[] = [];
  for (const chart of charts) {
    if (chart.toJson !== Chart.prototype.toJson) {
      for (const json of Object.values(chart.toJson())) if (json) objects.push({ chart, json: json as Json });
    } else {
      for (const o of chart.node.findAll()) {
        if (!(o instanceof ApiObject) || Chart.of(o) !== chart) continue;
        let json: Json;
        try {
          json = o.toJson() as Json;
        } catch (e) {
          const failure = patchFailure(o, e);
          throw failure === undefined ? e : new Error(failure);
        }
        objects.push({ chart, json, apiObject: o });
      }
    }
  }
  return renderedApp(objects);
}

const versions = new WeakMap<IConstruct, KubernetesVersion>();

/** Declares the Kubernetes version the objects under `scope` are validated at (HttpService: its platform's). */
export function declareKubernetesVersion(scope: Construct, version: KubernetesVersion): void {
  versions.set(scope, version);
}

function versionOf(scope: IConstruct): KubernetesVersion | undefined {
  for (let c: IConstruct | undefined = scope; c; c = c.node.scope) {
    const v = versions.get(c);
    if (v) return v;
  }
  return undefined;
}

/** The newest Kubernetes version declared in the app (its platforms'), else 1.28. */
export function appKubernetesVersion(app: IConstruct): KubernetesVersion {
  let newest = KubernetesVersion.V1_28;
  for (const c of app.node.root.node.findAll()) {
    const v = versions.get(c);
    if (v && v.minor > newest.minor) newest = v;
  }
  return newest;
}

/**
 * Maps a field of an object a construct rendered from its inputs back to the input that set it
 * (HttpService: `/spec/template/spec/tolerations/0/key` of its workload is `pod.tolerations[0]`).
 * A cluster problem on such a field is then the input's error, named as the user wrote it.
 */
export type InputMapper = (
  object: Json,
  pointer: string,
) => string | { readonly input: string; readonly pointer: string } | undefined;
const mappers = new WeakMap<IConstruct, InputMapper>();

export function declareInputMapper(scope: Construct, mapper: InputMapper): void {
  mappers.set(scope, mapper);
}

function mapperOf(scope: IConstruct): { mapper: InputMapper; scope: IConstruct } | undefined {
  for (let c: IConstruct | undefined = scope; c; c = c.node.scope) {
    const m = mappers.get(c);
    if (m) return { mapper: m, scope: c };
  }
  return undefined;
}

/** Whether an ApiObject carries an escape-hatch patch of the user's (then a problem is the patch's, not an input's). */
function userPatched(o: ApiObject): boolean {
  const patches = (o as unknown as { patches?: unknown[] }).patches;
  return Array.isArray(patches) && patches.some((p) => !isRenderingPatch(p as never));
}

/** A value as an error shows it: long strings and objects cut to 200 characters, with their length. */
function shortValue(v: unknown): unknown {
  const s = typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v);
  if (s === undefined) return null;
  return s.length > 200 ? `${s.slice(0, 200)}... (${s.length} characters)` : v;
}

function valueAt(o: Json, pointer: string): unknown {
  let x: unknown = o;
  for (const seg of pointer.split('/').filter(Boolean))
    x = x && typeof x === 'object' ? (x as Json)[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return x;
}

/**
 * Runs every registered check on the one render, then validates every written object as the
 * cluster does (schema, CEL rules, built-in validation; src/schemas/cluster-validator.ts) at the
 * Kubernetes version declared for it (its service's platform), else the newest version declared
 * in the app, else 1.28. Throws all problems at once, in the format of cdk8s' validate().
 */
export function runRenderChecks(app: App, r: RenderedApp): void {
  const problems: string[] = [];
  // A check of the whole app (registered on the root, whose path is empty) names its constructs itself.
  for (const { scope, check } of renderChecksOf(app))
    for (const m of check(r)) problems.push(scope.node.path === '' ? m : `[${scope.node.path}] ${m}`);
  const inputs: InputProblem[] = [];
  problems.push(...clusterProblems(app, r, true, inputs));
  // A cluster problem on a field an input set is that input's error (named as the user wrote it).
  if (inputs.length > 0) {
    const first = inputs[0];
    const more =
      inputs.length > 1
        ? ` (and ${inputs.length - 1} ` +
          `more: ${inputs
            .slice(1, 4)
            .map((i) => `${i.input}: ${i.message}`)
            .join('; ')})`
        : '';
    const e = new RollwiseInputError(
      first.input,
      first.value,
      `${first.message}: the cluster would refuse the ${first.object} rollwise renders from it ` +
        `(Kubernetes ${first.version}), after Argo CD had applied the rest${more}.`,
      `give ${first.input} a value the cluster accepts.`,
    );
    throw inService(e, first.service.node.id, first.service.node.path);
  }
  if (problems.length > 0) throw new Error(`Validation failed with the following errors:\n  ${problems.join('\n  ')}`);
}

/** The cluster validation of every rendered object, one message per problem. */
interface InputProblem {
  readonly input: string;
  readonly value: unknown;
  readonly message: string;
  readonly object: string;
  readonly version: string;
  readonly service: IConstruct;
}

export function clusterProblems(scope: Construct, r: RenderedApp, prefix: boolean, inputs?: InputProblem[]): string[] {
  const app = scope.node.root;
  const byObject = new Map<Json, ApiObject>();
  for (const x of r.objectsOf(scope)) byObject.set(x.json, x.apiObject);
  const fallback = appKubernetesVersion(app);
  const pass = new Pass();
  const validators = new Map<string, ClusterValidator>();
  const missing = new Set<string>();
  const unknownKinds = new Set<string>();
  const out: string[] = [];
  for (const { chart, json } of r.objects) {
    const owner = byObject.get(json);
    const version = versionOf(owner ?? chart) ?? fallback;
    let v = validators.get(version.name);
    if (!v) {
      const dir = findSchemaDir(version);
      if (dir === undefined) missing.add(version.name);
      validators.set(
        version.name,
        (v = dir === undefined ? ClusterValidator.builtinOnly(version) : ClusterValidator.for(dir, version)),
      );
    }
    if (
      v.hasSchemas &&
      typeof json.apiVersion === 'string' &&
      typeof json.kind === 'string' &&
      !v.knows(json.apiVersion, json.kind)
    )
      unknownKinds.add(`${json.apiVersion} ${json.kind}`);
    const mapped = inputs && owner && !userPatched(owner) ? mapperOf(owner) : undefined;
    for (const p of v.check(json, pass)) {
      // the mapper may name a field below the problem's (the value that makes the whole object too big)
      const m = mapped?.mapper(json, p.path);
      const input = typeof m === 'object' ? m.input : m;
      if (input !== undefined) {
        inputs!.push({
          input,
          value: shortValue(valueAt(json, typeof m === 'object' ? m.pointer : p.path)),
          message: p.message,
          object: p.object,
          version: version.name,
          service: mapped!.scope,
        });
        continue;
      }
      out.push(
        `${prefix ? `[${(owner ?? chart).node.path}] ` : ''}${formatClusterProblem(p)}: the cluster would refuse ` +
          `this object (Kubernetes ${version.name}), after Argo CD had applied the rest. Fix: correct the input or ` +
          `the escape-hatch patch that sets ${p.path}.`,
      );
    }
  }
  if (missing.size > 0) {
    addSynthWarning(
      app as Construct,
      `schemas: no pinned schemas for Kubernetes ${[...missing].join(', ')} were found (looked ` +
        `in ${schemaDirCandidates().join(', ')}), so the objects were checked against the API server's built-in ` +
        `rules only, not against their kinds' schemas and the CRDs' CEL rules. Fix: ${SCHEMA_FIX}.`,
    );
  }
  if (unknownKinds.size > 0) {
    addSynthWarning(
      app as Construct,
      `${[...unknownKinds].sort().join(', ')}: no pinned schema or CRD for this kind, so these objects were checked ` +
        `against the API server's built-in rules only.`,
    );
  }
  return out;
}
