import * as path from 'path';
import { ApiObject, App, Chart, Names, YamlOutputType } from 'cdk8s';
import { IConstruct, Node } from 'constructs';
import { serializeObjects } from './serialize';
import { checkRelPath, SynthLayout } from './layout';
import { patchFailure } from '../invariants/final-objects';
import { chartOf, outputFileEntriesOf } from './output';
import { beginRender, renderedApp, runRenderChecks } from './render-checks';

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
  for (const f of planApp(app, opts)) yield 'content' in f ? f : { path: f.path, content: serializeObjects(f.objects, comments) };
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
  const ext = app.outputFileExtension;
  const chartFiles = new Map<Chart, string>();
  const written = new Map<string, string>();
  const claim = (file: string, by: string) => {
    const prev = written.get(file);
    if (prev !== undefined) throw new Error(`two outputs write ${file}: ${prev} and ${by}`);
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
        const folder = perChartFolder ? (hasDependantCharts ? `${(index++).toString().padStart(4, '0')}-${base}` : base) : '';
        for (const obj of chartJson(chart)) {
          if (obj === undefined) continue;
          const o = obj as { kind?: string; metadata?: { name?: string; namespace?: string } };
          const name = `${o.kind}.${o.metadata?.name}`.replace(/[^0-9a-zA-Z-_.]/g, '');
          const file = path.posix.join(folder, name + ext);
          claim(file, `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name} of chart ${chart.node.path}`);
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
    yield { path: claim('construct-metadata.json', 'construct metadata'), content: JSON.stringify({ version: '1.0.0', resources }) };
  }

  for (const f of outputFileEntriesOf(app)) {
    const chart = chartOf(f.scope);
    const chartFile = chart && chartFiles.get(chart);
    const folder = chartFile ? path.posix.dirname(chartFile) : '.';
    const file = checkRelPath(`output file of ${f.scope.node.path}`, path.posix.join(folder, f.relPath));
    yield { path: claim(file, `construct ${f.scope.node.path}`), content: f.content };
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
  const byChart = new Map<Chart, unknown[]>();
  const flat: Rendered[] = [];
  const errors: string[] = [];
  for (const chart of charts) {
    if (chart.toJson !== Chart.prototype.toJson) {
      const objs = Object.values(chart.toJson());
      byChart.set(chart, objs);
      for (const json of objs) if (json && typeof json === 'object') flat.push({ chart, json: json as Record<string, unknown> });
      continue;
    }
    const objs: unknown[] = [];
    for (const o of chartObjects(chart)) {
      let json: Record<string, unknown>;
      try {
        json = o.toJson() as Record<string, unknown>;
      } catch (e) {
        const failure = patchFailure(o, e);
        if (failure === undefined) throw e;
        errors.push(`[${o.node.path}] ${failure}`);
        continue;
      }
      objs.push(json);
      flat.push({ chart, json, apiObject: o });
    }
    byChart.set(chart, objs);
  }
  if (errors.length > 0) throw new Error(`Validation failed with the following errors:\n  ${errors.join('\n  ')}`);
  return { byChart, flat };
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
  for (const child of findAll(app.node)) for (const dep of child.node.dependencies) deps.push({ source: child, target: dep });
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
    const targets = findAll(dep.target.node).filter((c) => c instanceof ApiObject).filter((x) => Chart.of(x) === targetChart);
    const sources = findAll(dep.source.node).filter((c) => c instanceof ApiObject).filter((x) => Chart.of(x) === sourceChart);
    for (const target of targets) for (const source of sources) if (target !== source) source.node.addDependency(target);
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
  const vertices: Record<string, Vertex> = {};
  for (const c of all) vertices[c.node.path] = { value: c, children: new Set(), inbound: 0 };
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
  const list = Object.values(vertices);
  for (const v of list) if (v.inbound === 0) visit(v);
  // Vertices on a cycle have no root above them; walking from each of them finds the cycle.
  if (order.length < list.length) for (const v of list) visit(v);
  return order;
}
