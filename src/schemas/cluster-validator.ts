import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { readDocuments } from '../rules/fast-yaml';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { builtinProblems } from './builtin';
import { schemaDirCandidates } from './locate';
import { Pass, SchemaCompiler, SchemaProblem } from './structural';

type Json = Record<string, unknown>;

/** One reason the cluster would refuse an object. */
export interface ClusterProblem {
  /** "Kind/name" (namespace/name for namespaced objects). */
  readonly object: string;
  /** JSON-pointer-like field path, e.g. "/spec/rules/0/matches/0/path/value". */
  readonly path: string;
  readonly message: string;
  /** Which check: the kind's schema, a CRD's CEL rule, or the API server's built-in validation. */
  readonly source: 'schema' | 'cel' | 'builtin';
}

/**
 * Validates objects as the cluster does, in three stages: the kind's OpenAPI schema (strict) and
 * the CRDs' CEL rules after structural defaulting (structural.ts, cel.ts), and the API server's
 * built-in validation (builtin.ts). Compiled once per schema folder and Kubernetes version, each
 * kind on first use; a validator is reused by every synth, but results are not (`check` takes a
 * fresh Pass each call unless given one).
 */
export class ClusterValidator {
  private static readonly loaded = new Map<string, ClusterValidator>();

  /** The validator for a schema folder and version, compiled once per process. */
  public static for(dir: string, version: KubernetesVersion): ClusterValidator {
    const key = `${dir}\u0000${version.name}`;
    let v = this.loaded.get(key);
    if (!v) this.loaded.set(key, (v = new ClusterValidator(dir, version)));
    return v;
  }

  /** A validator without schemas: the built-in checks only (no pinned schemas were found). */
  public static builtinOnly(version: KubernetesVersion): ClusterValidator {
    return ClusterValidator.for('', version);
  }

  private k8s?: SchemaCompiler;
  private crdCompiler?: SchemaCompiler;
  private crdSchemas?: Map<string, Json>;
  private gvk?: Map<string, string>;
  private crdFiles?: Map<string, string>;
  private readonly kinds = new Map<string, ReturnType<SchemaCompiler['compile']> | null>();

  private constructor(public readonly dir: string, public readonly version: KubernetesVersion) {}

  /** Whether schema and CEL checks run (a schema folder was found). */
  public get hasSchemas(): boolean {
    return this.dir !== '';
  }

  private load(): void {
    if (this.k8s || !this.hasSchemas) return;
    const defs = JSON.parse(fs.readFileSync(path.join(this.dir, 'schemas', this.version.schemaFile), 'utf8')) as { definitions: Record<string, Json> };
    this.k8s = new SchemaCompiler(defs.definitions);
    // built-in kinds by the group, version and kind each definition declares (CustomResourceDefinition
    // is io.k8s.apiextensions-apiserver..., not io.k8s.api...)
    this.gvk = new Map();
    for (const [name, d] of Object.entries(defs.definitions)) {
      for (const g of (d['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[]) {
        this.gvk.set(`${g.group}/${g.version}/${g.kind}`, name);
      }
    }
    this.crdCompiler = new SchemaCompiler({}, true, this.k8s);
    this.crdSchemas = new Map();
    this.crdFiles = new Map();
    // Parsing YAML is most of the load time, so each CRD file is parsed when its kind is first
    // met; the group and kind are read from the text (the `spec.group` and `spec.names.kind` lines).
    for (const f of fs.readdirSync(path.join(this.dir, 'crds')).filter((x) => x.endsWith('.yaml')).sort()) {
      const file = path.join(this.dir, 'crds', f);
      const text = fs.readFileSync(file, 'utf8');
      const group = /^ {2}group: ['"]?([^'"\s]+)/m.exec(text)?.[1];
      const kind = /^ {2}names:\n(?: {4}.*\n)*? {4}kind: ['"]?([^'"\s]+)/m.exec(text)?.[1];
      if (group && kind) this.crdFiles.set(`${group}/${kind}`, file);
      else this.parseCrd(file);
    }
  }

  private parseCrd(file: string): void {
    const text = fs.readFileSync(file, 'utf8');
    // the fast reader gives what YAML.parse gives (src/rules/fast-yaml.ts), several times faster
    const docs = readDocuments(text, '1.2');
    const crd = (docs?.length === 1 ? docs[0].value : YAML.parse(text)) as { spec: { group: string; names: { kind: string }; versions: { name: string; schema?: { openAPIV3Schema: Json } }[] } };
    for (const v of crd.spec.versions) if (v.schema) this.crdSchemas!.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, v.schema.openAPIV3Schema);
  }

  private nodeFor(apiVersion: string, kind: string): ReturnType<SchemaCompiler['compile']> | null {
    const key = `${apiVersion}/${kind}`;
    if (this.kinds.has(key)) return this.kinds.get(key)!;
    this.load();
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const file = this.crdFiles!.get(`${group}/${kind}`);
    if (file) {
      this.crdFiles!.delete(`${group}/${kind}`);
      this.parseCrd(file);
    }
    let node: ReturnType<SchemaCompiler['compile']> | null = null;
    const crd = this.crdSchemas!.get(`${group}/${version}/${kind}`);
    if (crd) {
      // CRD schemas declare metadata as a bare object; the API server checks it as ObjectMeta.
      const props = { ...(crd.properties as Json), metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } };
      node = this.crdCompiler!.compile({ ...crd, properties: props });
    } else {
      const name = this.gvk!.get(`${group}/${version}/${kind}`);
      node = name ? this.k8s!.compile({ $ref: `#/definitions/${name}` }) : null;
    }
    this.kinds.set(key, node);
    return node;
  }

  /** Whether the schema folder has a schema for the kind (a kind of another operator has none). */
  public knows(apiVersion: string, kind: string): boolean {
    return this.hasSchemas && this.nodeFor(apiVersion, kind) !== null;
  }

  /** Every problem of one object. */
  public check(obj: unknown, pass: Pass = new Pass()): ClusterProblem[] {
    const o = obj as Json;
    const meta = (o && typeof o.metadata === 'object' ? o.metadata : {}) as Json;
    const ref = `${String(o?.kind ?? '?')}/${meta.namespace ? `${String(meta.namespace)}/` : ''}${String(meta.name ?? '?')}`;
    const out: ClusterProblem[] = [];
    if (!o || typeof o !== 'object' || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
      return [{ object: ref, path: '/', message: 'has no apiVersion and kind', source: 'schema' }];
    }
    if (this.hasSchemas) {
      const node = this.nodeFor(o.apiVersion, o.kind);
      // A kind of neither Kubernetes nor the pinned CRDs (another operator's) has no schema here;
      // the caller reports those as unchecked.
      if (node) {
        const problems: SchemaProblem[] = [];
        node.check(o, '', problems, pass);
        for (const p of problems) out.push({ object: ref, path: p.path || '/', message: p.message, source: p.source });
      }
    }
    for (const p of builtinProblems(o, this.version)) out.push({ object: ref, path: p.path, message: p.message, source: 'builtin' });
    return out;
  }
}

/** The schema folder, or undefined when none of the candidates holds the pinned files. */
export function findSchemaDir(version: KubernetesVersion = KubernetesVersion.V1_28): string | undefined {
  for (const dir of schemaDirCandidates()) {
    if (fs.existsSync(path.join(dir, 'schemas', version.schemaFile)) && fs.existsSync(path.join(dir, 'crds'))) return dir;
  }
  return undefined;
}

/** "Kind/name /path: message [source]" as synth and lint print a problem. */
export function formatClusterProblem(p: ClusterProblem): string {
  const what = p.source === 'cel' ? 'CRD validation rule' : p.source === 'builtin' ? 'API server validation' : 'schema';
  return `${p.object} ${p.path}: ${p.message} (${what})`;
}
