import * as path from 'path';
import { ApiObject, App, Chart, Lazy, Names, YamlOutputType } from 'cdk8s';
import { IConstruct, Node } from 'constructs';
import { serializeObjects } from './serialize';
import { checkRelPath, SynthLayout } from './layout';
import { patchFailure } from '../invariants/final-objects';
import { chartOf, outputFileEntriesOf } from './output';
import { beginRender, renderedApp, runRenderChecks } from './render-checks';
import { RollwiseInputError } from '../errors';
import { withFastToJson } from './fast-render';

/** One file of the synthesized output. */
export interface SynthFile {
  /** Path relative to the output folder, "/"-separated. */
  readonly path: string;
  readonly content: string;
}

export interface RenderOptions {
  /**
   * Put each value's reason as a YAML comment above it. Without comments the output is byte for
   * byte what `App.synth()` writes.
   * @default true
   */
  readonly comments?: boolean;
  /**
   * Where each chart's file goes (one-file-per-chart output only).
   * @default SynthLayout.declared()
   */
  readonly layout?: SynthLayout;
  /**
   * Called after each chart is serialized, with the number done and the total.
   * @default none
   */
  readonly onChart?: (done: number, total: number) => void;
}

/**
 * Synthesizes an app like `App.synth()` does, in time linear in the number of charts: the app-wide
 * steps run once (validate, resolve dependencies, order the charts), then each chart is ordered,
 * turned into JSON and serialized once. `App.synth()` re-runs validation and dependency
 * resolution over the whole app for every chart (`Chart.toJson()` -> `App._synthChart`), which
 * makes it quadratic. Yields the files chart by chart (then the construct-added extra files), so a
 * caller can write them without holding the whole estate's YAML in memory.
 *
 * Equivalence with `App.synth()` (tested byte for byte with `comments: false`) assumes that
 * `toJson()` does not change the construct tree or the dependencies, which holds for ApiObjects,
 * cdk8s-plus and the generated imports. A chart class that overrides `toJson()` is honoured (its
 * own `toJson()` is called).
 */
export function* renderApp(app: App, opts: RenderOptions = {}): Generator<SynthFile> {
  const comments = opts.comments ?? true;
  for (const f of planApp(app, opts))
    yield 'content' in f ? f : { path: f.path, content: serializeObjects(f.objects, comments) };
}

/** A file of the output: its objects still to be serialized, or its final content. */
export type PlannedFile = { readonly path: string; readonly objects: unknown[] } | SynthFile;

/**
 * renderApp's work without the serialization: the files in order, each with the plain objects
 * to serialize (charts) or its content (extra files). Lets a writer serialize elsewhere.
 */
export function* planApp(app: App, opts: RenderOptions = {}): Generator<PlannedFile> {
  const layout = opts.layout ?? SynthLayout.declared();

  // App.synth(): one cache for validate and resolveDependencies, validate first.
  const cache = new Map<Node, IConstruct[]>();
  const findAll = (n: Node) => {
    let all = cache.get(n);
    if (!all) cache.set(n, (all = n.findAll()));
    return all;
  };
  const endRender = beginRender(app);
  let rendered: ReturnType<typeof renderCharts>;
  let charts: Chart[];
  let hasDependantCharts: boolean;
  try {
    validate(app, findAll);
    hasDependantCharts = resolveDependencies(app, findAll);
    charts = dependencyOrder(app.node).filter((c): c is Chart => c instanceof Chart);
    // One render (render-checks.ts): every chart's objects once; the checks run on these, and
    // these are what is serialized below. (A chart's own toJson() re-validates the app through
    // cdk8s; the checks stay deferred to this pass meanwhile.)
    rendered = renderCharts(charts);
  } finally {
    endRender();
  }
  const ext = checkOutputFileExtension(app.outputFileExtension);
  const chartFiles = new Map<Chart, string>();
  const written = new Map<string, string>();
  const layoutInput =
    opts.layout === undefined ? 'the declared output paths (declareOutputPath, Environment ' + 'outputPath)' : 'layout';
  const claim = (
    file: string,
    by: string,
    input = layoutInput,
    fix = 'give each chart its own file (SynthLayout.custom returns one path per chart; Environment charts take ' +
      'outputPath), or put the objects in one chart.',
  ) => {
    const prev = written.get(file);
    if (prev !== undefined) {
      throw new RollwiseInputError(
        input,
        file,
        `two outputs write ${file}: ${prev} and ${by}; one would overwrite the other (cdk8s keeps only the last), so ` +
          'nothing is written.',
        fix,
      );
    }
    written.set(file, by);
    return file;
  };
  if (app.yamlOutputType === YamlOutputType.FILE_PER_CHART) {
    let index = 0;
    for (const chart of charts) {
      const base = Names.toDnsLabel(chart);
      const flat = `${hasDependantCharts ? `${(index++).toString().padStart(4, '0')}-${base}` : base}${ext}`;
      chartFiles.set(chart, claim(layout.fileFor(chart, flat), `chart ${chart.node.path}`));
    }
  }
  runRenderChecks(app, renderedApp(rendered.flat, chartFiles));
  const chartJson = (chart: Chart) => rendered.byChart.get(chart)!;
  let done = 0;
  const progress = () => opts.onChart?.(++done, charts.length);

  switch (app.yamlOutputType) {
    case YamlOutputType.FILE_PER_APP: {
      const all: unknown[] = [];
      for (const chart of charts) {
        all.push(...chartJson(chart));
        progress();
      }
      if (charts.length > 0) yield { path: claim(`app${ext}`, 'the app'), objects: all };
      break;
    }
    case YamlOutputType.FILE_PER_CHART: {
      for (const chart of charts) {
        yield { path: chartFiles.get(chart)!, objects: chartJson(chart) };
        progress();
      }
      break;
    }
    case YamlOutputType.FILE_PER_RESOURCE:
    case YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE: {
      // cdk8s overwrites a file when two objects share kind and name (the last one wins, so the
      // others are silently not written); rollwise refuses that instead, naming both objects.
      const perChartFolder = app.yamlOutputType === YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE;
      const files = new Map<string, unknown>();
      let index = 0;
      for (const chart of charts) {
        const base = Names.toDnsLabel(chart);
        const folder = perChartFolder
          ? hasDependantCharts
            ? `${(index++).toString().padStart(4, '0')}-${base}`
            : base
          : '';
        for (const obj of chartJson(chart)) {
          if (obj === undefined) continue;
          const o = obj as { kind?: string; metadata?: { name?: string; namespace?: string } };
          const name = `${o.kind}.${o.metadata?.name}`.replace(/[^0-9a-zA-Z-_.]/g, '');
          const file = path.posix.join(folder, name + ext);
          claim(
            file,
            `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name} of ` +
              `chart ${chart.node.path}`,
            'yamlOutputType',
            'give the objects different kinds or names (one file per object is named <kind>.<name>), or use ' +
              'YamlOutputType.FILE_PER_CHART.',
          );
          files.set(file, obj);
        }
        progress();
      }
      for (const [file, obj] of files) yield { path: file, objects: [obj] };
      break;
    }
    default:
      break;
  }

  if ((app as unknown as { recordConstructMetadata?: boolean }).recordConstructMetadata) {
    const resources: Record<string, { path: string }> = {};
    for (const chart of charts) for (const obj of chartObjects(chart)) resources[obj.name] = { path: obj.node.path };
    yield {
      path: claim(
        'construct-metadata.json',
        'construct metadata',
        'recordConstructMetadata',
        'rename the output that writes construct-metadata.json, or leave recordConstructMetadata off.',
      ),
      content: JSON.stringify({ version: '1.0.0', resources }),
    };
  }

  for (const f of outputFileEntriesOf(app)) {
    const chart = chartOf(f.scope);
    const chartFile = chart && chartFiles.get(chart);
    const folder = chartFile ? path.posix.dirname(chartFile) : '.';
    const file = checkRelPath(
      `the file ${f.relPath} of ${f.scope.node.path}${chartFile ? `, beside its chart's file ${chartFile},` : ''}`,
      path.posix.join(folder, f.relPath),
      `addOutputFile(${f.scope.node.path})`,
    );
    yield {
      path: claim(
        file,
        `construct ${f.scope.node.path}`,
        `addOutputFile(${f.scope.node.path})`,
        "give each added file its own name (it goes beside its chart's file).",
      ),
      content: f.content,
    };
  }
}

/** The ApiObjects of a chart in the order `App.synth()` writes them. */
function chartObjects(chart: Chart): ApiObject[] {
  return dependencyOrder(chart.node).filter((x): x is ApiObject => x instanceof ApiObject && Chart.of(x) === chart);
}

type Rendered = { chart: Chart; json: Record<string, unknown>; apiObject?: ApiObject };

/**
 * Every chart's objects, rendered once: each ApiObject's toJson() (Lazy values resolved, patches
 * applied), or, for a chart class with its own toJson(), what that returns (that path is as slow
 * as App.synth()). A patch that cannot be applied is reported naming the object and the patch.
 */
function renderCharts(charts: readonly Chart[]): { byChart: Map<Chart, unknown[]>; flat: Rendered[] } {
  // cdk8s' toJson with a cheaper resolve, the same result (fast-render.ts), for the whole loop: the
  // prototype is changed twice, not twice per object (a changed prototype costs V8 its caches)
  return withFastToJson(() => renderChartsWith(charts));
}

function renderChartsWith(charts: readonly Chart[]): { byChart: Map<Chart, unknown[]>; flat: Rendered[] } {
  const byChart = new Map<Chart, unknown[]>();
  const flat: Rendered[] = [];
  const errors: string[] = [];
  for (const chart of charts) {
    if (chart.toJson !== Chart.prototype.toJson) {
      const objs = chartToJson(chart);
      byChart.set(chart, objs);
      for (const json of objs) flat.push({ chart, json });
      continue;
    }
    const objs: unknown[] = [];
    for (const o of chartObjects(chart)) {
      let json: Record<string, unknown>;
      refuseLazyInPatches(o);
      try {
        json = o.toJson() as Record<string, unknown>;
      } catch (e) {
        const failure = patchFailure(o, e);
        if (failure === undefined) throw e;
        errors.push(`[${o.node.path}] ${failure}`);
        continue;
      }
      if (json === null || typeof json !== 'object' || Array.isArray(json)) {
        throw new RollwiseInputError(
          `${o.node.path}.toJson()`,
          shownJson(json),
          `returned ${describeJson(json)} instead of the object's manifest (an object with apiVersion, kind and ` +
            `metadata): the ApiObject's toJson() was replaced, and synth cannot write or check what it returned.`,
          'return the object as ApiObject.toJson() does (call the original and change its result), or change the ' +
            'object with addJsonPatch.',
        );
      }
      const dropped = droppedPatch(o, json);
      if (dropped) errors.push(`[${o.node.path}] ${dropped}`);
      objs.push(json);
      flat.push({ chart, json, apiObject: o });
    }
    byChart.set(chart, objs);
  }
  if (errors.length > 0) throw new Error(`Validation failed with the following errors:\n  ${errors.join('\n  ')}`);
  return { byChart, flat };
}

/**
 * A JSON patch that the object's own serializer dropped. cdk8s-plus-28's generated L1 classes
 * (KubeService, KubePodDisruptionBudget, KubeHorizontalPodAutoscalerV2) render by calling
 * ApiObject.toJson() (which applies the patches) and then converting the result through their
 * typed toJson_<Kind>Props(), which keeps only values of the declared types: an IntOrString field
 * patched with a plain number (PDB spec.minAvailable) or an unknown field disappears without a word
 * (cdk8s-plus-28 lib/imports/k8s.js, e.g. KubePodDisruptionBudget.toJson). The last add or replace
 * of each path, and each remove, must be visible in what is written.
 */
function droppedPatch(o: ApiObject, json: Record<string, unknown>): string | undefined {
  if (o.toJson === ApiObject.prototype.toJson) return undefined;
  const ops = (
    (o as unknown as { patches?: { operation?: { op?: string; path?: string; value?: unknown } }[] }).patches ?? []
  )
    .map((p) => p?.operation)
    .filter(
      (op): op is { op: string; path: string; value?: unknown } =>
        typeof op?.op === 'string' && typeof op.path === 'string',
    );
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!['add', 'replace', 'remove'].includes(op.op) || op.path.endsWith('/-')) continue;
    // a later operation on the same path, above or below it, decides what is written there
    if (ops.slice(i + 1).some((later) => related(later.path, op.path) || ['move', 'copy'].includes(later.op))) continue;
    let at: unknown = json;
    let present = true;
    for (const seg of op.path
      .split('/')
      .slice(1)
      .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      const rec = at !== null && typeof at === 'object' ? (at as Record<string, unknown>) : undefined;
      if (!rec || !(seg in rec) || rec[seg] === undefined) {
        present = false;
        break;
      }
      at = rec[seg];
    }
    const written = present ? JSON.stringify(at) : undefined;
    const wanted = op.op === 'remove' ? undefined : JSON.stringify(op.value);
    if (written !== wanted) {
      return (
        `JsonPatch.${op.op}('${op.path}'${op.op === 'remove' ? '' : `, ${wanted}`}) is not in ` +
        `what ${o.kind}/${o.name} writes (${present ? `it writes ${written}` : 'the field is absent'}): the object's ` +
        `typed serializer (cdk8s-plus-28's ${o.constructor.name}) keeps only values of the field's declared type, so ` +
        'the patch would be silently lost. Fix: patch with the type the field declares (an IntOrString field takes ' +
        `IntOrString.fromNumber(...)/fromString(...)), or set the value through the construct's props.`
      );
    }
  }
  return undefined;
}

/** A value a replaced toJson() returned, for an error. */
function shownJson(v: unknown): unknown {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'bigint') return `${String(v)}n`;
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text !== undefined && text.length > 200 ? `${text.slice(0, 200)}...` : v;
}

function describeJson(v: unknown): string {
  return v === null
    ? 'null'
    : v === undefined
      ? 'nothing'
      : Array.isArray(v)
        ? 'a list'
        : `a${/^[aeiou]/.test(typeof v) ? 'n' : ''} ${typeof v}`;
}

/**
 * The objects of a chart class that overrides toJson(): what it returns must be a list of
 * manifests (as Chart.toJson() returns), or synth would check and write something else than the
 * chart meant (an object's values, or nothing at all, silently).
 */
function chartToJson(chart: Chart): Record<string, unknown>[] {
  const out: unknown = chart.toJson();
  const fix =
    'return a list of Kubernetes objects, as Chart.toJson() does (e.g. return super.toJson().map((o) => ' + '...)).';
  if (!Array.isArray(out)) {
    throw new RollwiseInputError(
      `${chart.node.path}.toJson()`,
      shownJson(out),
      `returned ${describeJson(out)}, not the list of objects a chart's toJson() returns; synth writes and checks ` +
        'exactly what it returns.',
      fix,
    );
  }
  out.forEach((o, i) => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) {
      throw new RollwiseInputError(
        `${chart.node.path}.toJson()[${i}]`,
        shownJson(o),
        `is ${describeJson(o)}, not a Kubernetes object (an object with apiVersion, kind and metadata).`,
        fix,
      );
    }
  });
  return out as Record<string, unknown>[];
}

/**
 * A Lazy in an escape-hatch patch is never produced: cdk8s resolves Lazy values first and applies
 * the JSON patches to the result (cdk8s ApiObject.toJson: resolve, then JsonPatch.apply, which
 * deep-copies the patch value), so the object would carry the Lazy itself, `{"producer":{}}`.
 */
function refuseLazyInPatches(o: ApiObject): void {
  const patches =
    (o as unknown as { patches?: { operation?: { op?: string; path?: string; value?: unknown } }[] }).patches ?? [];
  const find = (v: unknown, depth: number): boolean =>
    v instanceof Lazy ||
    (depth < 32 && typeof v === 'object' && v !== null && Object.values(v).some((x) => find(x, depth + 1)));
  for (const p of patches) {
    const op = p?.operation;
    if (op && find(op.value, 0)) {
      const field = String(op.path ?? '')
        .split('/')
        .slice(1)
        .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce(
          (acc, seg) =>
            /^\d+$/.test(seg)
              ? `${acc}[${seg}]`
              : /^[A-Za-z0-9_-]+$/.test(seg)
                ? `${acc}${acc ? '.' : ''}${seg}`
                : `${acc}["${seg}"]`,
          '',
        );
      throw new RollwiseInputError(
        `${o.node.path}.addJsonPatch(JsonPatch.${op.op ?? 'add'}('${op.path}', ...))`,
        'a Lazy',
        'a Lazy in a JSON patch is never produced: cdk8s resolves Lazy values before it applies the patches, ' +
          `so ${o.kind}/${o.name} ${field || 'itself'} would hold the Lazy object itself ({"producer":{}}) and its ` +
          'producer is never called.',
        "put the Lazy in the object's own props (there it is resolved), or patch with the value it would produce.",
      );
    }
  }
}

/** The app's outputFileExtension: it ends every file name, so it may not leave the file's folder. */
function checkOutputFileExtension(ext: unknown): string {
  if (typeof ext !== 'string' || /[/\\]/.test(ext) || [...ext].some((ch) => ch.charCodeAt(0) < 0x20)) {
    throw new RollwiseInputError(
      'outputFileExtension',
      ext === undefined ? 'undefined' : ext,
      `ends every file name synth writes (<chart>${typeof ext === 'string' ? ext : '.k8s.yaml'}), so it must be a ` +
        `string without "/", "\\" or control characters: a "/" would put the files, and the runbooks beside them, in ` +
        'other folders.',
      'use an extension like ".k8s.yaml" (the default) or ".yaml".',
    );
  }
  return ext;
}

/** cdk8s' validate(): every construct's validations, errors in one exception. */
function validate(app: App, findAll: (n: Node) => IConstruct[]): void {
  const errors: string[] = [];
  for (const child of findAll(app.node)) {
    for (const error of child.node.validate()) errors.push(`[${child.node.path}] ${error}`);
  }
  if (errors.length > 0) throw new Error(`Validation failed with the following errors:\n  ${errors.join('\n  ')}`);
}

function buildDependencies(app: App, findAll: (n: Node) => IConstruct[]): { source: IConstruct; target: IConstruct }[] {
  const deps: { source: IConstruct; target: IConstruct }[] = [];
  for (const child of findAll(app.node))
    for (const dep of child.node.dependencies) deps.push({ source: child, target: dep });
  return deps;
}

/** cdk8s' resolveDependencies(), step for step; returns whether any chart depends on another. */
function resolveDependencies(app: App, findAll: (n: Node) => IConstruct[]): boolean {
  let hasDependantCharts = false;
  // explicit chart dependencies from nested charts
  for (const parent of findAll(app.node).filter((x) => x instanceof Chart)) {
    for (const child of parent.node.children.filter((x) => x instanceof Chart)) {
      parent.node.addDependency(child);
      hasDependantCharts = true;
    }
  }
  // chart dependencies from construct dependencies that cross charts
  for (const dep of buildDependencies(app, findAll)) {
    const sourceChart = Chart.of(dep.source);
    const targetChart = Chart.of(dep.target);
    if (sourceChart !== targetChart) {
      sourceChart.node.addDependency(targetChart);
      hasDependantCharts = true;
    }
  }
  // ApiObject dependencies from construct dependencies
  for (const dep of buildDependencies(app, findAll)) {
    const sourceChart = Chart.of(dep.source);
    const targetChart = Chart.of(dep.target);
    const targets = findAll(dep.target.node)
      .filter((c) => c instanceof ApiObject)
      .filter((x) => Chart.of(x) === targetChart);
    const sources = findAll(dep.source.node)
      .filter((c) => c instanceof ApiObject)
      .filter((x) => Chart.of(x) === sourceChart);
    for (const target of targets)
      for (const source of sources) if (target !== source) source.node.addDependency(target);
  }
  return hasDependantCharts;
}

interface Vertex {
  readonly value: IConstruct;
  readonly children: Set<Vertex>;
  inbound: number;
}

/**
 * The order of `new DependencyGraph(node).topology()` (cdk8s), computed in linear time: the same
 * vertices (keyed by path in a plain object, so the same iteration order), the same edges in the
 * same order, the same post-order walk from the roots; visiting a finished vertex again is skipped
 * (cdk8s re-walks it, which adds nothing to the order but can take exponential time). A cycle
 * throws, as cdk8s does when it builds the graph.
 */
export function dependencyOrder(node: Node): IConstruct[] {
  const all = node.findAll();
  const vertices = vertexMap(all);
  addEdges(all, vertices);
  return postOrder(Object.values(vertices));
}

/*
 * dependencyOrder's three loops are three functions: as one, V8 compiled the first loop on stack
 * replacement and its code ran on into the edge loop, whose body an estate without dependencies
 * never runs, and deoptimized there, up to once per chart (node 20, 1,000 services: 21 to 936
 * deoptimizations of it in one synth, by the run, docs/performance.md, seventh round).
 */

/** The graph's vertices, keyed by path in a plain object (cdk8s' iteration order). */
function vertexMap(all: readonly IConstruct[]): Record<string, Vertex> {
  const vertices: Record<string, Vertex> = {};
  for (const c of all) vertices[c.node.path] = { value: c, children: new Set(), inbound: 0 };
  return vertices;
}

/** Each construct's dependencies as edges, in cdk8s' order. */
function addEdges(all: readonly IConstruct[], vertices: Record<string, Vertex>): void {
  for (const child of all) {
    for (const dep of child.node.dependencies) {
      const target = vertices[dep.node.path];
      if (!target) continue; // dependencies outside the subtree are not part of the graph
      const source = vertices[child.node.path];
      if (!source.children.has(target)) {
        source.children.add(target);
        target.inbound++;
      }
    }
  }
}

/** The post-order walk from the roots (then from every vertex, to find a cycle). */
function postOrder(list: readonly Vertex[]): IConstruct[] {
  const order: IConstruct[] = [];
  const state = new Map<Vertex, 'visiting' | 'done'>();
  const stack: Vertex[] = [];
  const visit = (v: Vertex): void => {
    const s = state.get(v);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...stack.slice(stack.indexOf(v)), v];
      throw new Error(`Dependency cycle detected: ${cycle.map((x) => x.value.node.path).join(' => ')}`);
    }
    state.set(v, 'visiting');
    stack.push(v);
    for (const c of v.children) visit(c);
    stack.pop();
    state.set(v, 'done');
    order.push(v.value);
  };
  for (const v of list) if (v.inbound === 0) visit(v);
  // Vertices on a cycle have no root above them; walking from each of them finds the cycle.
  if (order.length < list.length) for (const v of list) visit(v);
  return order;
}
