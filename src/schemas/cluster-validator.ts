import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { readDocuments } from '../rules/fast-yaml';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { BUILTIN_GROUPS, builtinProblems, groupOf } from './builtin';
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
  /** The value that broke the rule, when the check names one (absent for a missing field). */
  readonly value?: unknown;
}

/**
 * Required fields of built-in kinds' OpenAPI definitions that the API server defaults before it
 * validates, or accepts absent, so leaving them out is not refused. The definitions' `required`
 * lists come from the Go types (a field without omitempty); built-in kinds are decoded into those
 * types, defaulted, then validated by hand-written code, not by the OpenAPI schema.
 * RoleRef.apiGroup: kubernetes pkg/apis/rbac/v1/defaults.go SetDefaults_RoleBinding and
 * SetDefaults_ClusterRoleBinding set rbac.authorization.k8s.io when it is empty (read in the code
 * index's copies of v1, v1beta1 and v1alpha1, unchanged since 1.8).
 */
const DEFAULTED_REQUIRED: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['rbac.authorization.k8s.io/RoleBinding', new Set(['/roleRef/apiGroup'])],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', new Set(['/roleRef/apiGroup'])],
  // NetworkPolicySpec.PodSelector is a struct, not a pointer: an absent one decodes to the empty
  // selector (every pod of the namespace), which ValidateNetworkPolicySpec accepts
  // (pkg/apis/networking/validation/validation.go, ValidateLabelSelector(&spec.PodSelector, ...),
  // read in the code index's copy of 1.33 or later)
  ['networking.k8s.io/NetworkPolicy', new Set(['/spec/podSelector'])],
]);

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
  /** Custom kinds ("group/kind") of the pinned CRDs, and whether each is namespaced (spec.scope). */
  private crdScopes?: Map<string, boolean>;
  private gvk?: Map<string, string>;
  private crdFiles?: Map<string, string>;
  /** The pinned file ("crds/<name>.yaml") each custom kind ("group/kind") was read from. */
  private readonly crdOrigins = new Map<string, string>();
  private readonly kinds = new Map<string, ReturnType<SchemaCompiler['compile']> | null>();

  private constructor(
    public readonly dir: string,
    public readonly version: KubernetesVersion,
  ) {}

  /** Whether schema and CEL checks run (a schema folder was found). */
  public get hasSchemas(): boolean {
    return this.dir !== '';
  }

  private load(): void {
    if (this.k8s || !this.hasSchemas) return;
    const defs = JSON.parse(fs.readFileSync(path.join(this.dir, 'schemas', this.version.schemaFile), 'utf8')) as {
      definitions: Record<string, Json>;
    };
    this.k8s = new SchemaCompiler(defs.definitions);
    // built-in kinds by the group, version and kind each definition declares (CustomResourceDefinition
    // is io.k8s.apiextensions-apiserver..., not io.k8s.api...)
    this.gvk = new Map();
    for (const [name, d] of Object.entries(defs.definitions)) {
      for (const g of (d['x-kubernetes-group-version-kind'] ?? []) as {
        group: string;
        version: string;
        kind: string;
      }[]) {
        this.gvk.set(`${g.group}/${g.version}/${g.kind}`, name);
      }
    }
    this.crdCompiler = new SchemaCompiler({}, true, this.k8s);
    this.crdSchemas = new Map();
    this.crdScopes = new Map();
    this.crdFiles = new Map();
    // Parsing YAML is most of the load time, so each CRD file is parsed when its kind is first
    // met; the group and kind are read from the text (the `spec.group` and `spec.names.kind` lines).
    for (const f of fs
      .readdirSync(path.join(this.dir, 'crds'))
      .filter((x) => x.endsWith('.yaml'))
      .sort()) {
      const file = path.join(this.dir, 'crds', f);
      const text = fs.readFileSync(file, 'utf8');
      const group = /^ {2}group: ['"]?([^'"\s]+)/m.exec(text)?.[1];
      const kind = /^ {2}names:\n(?: {4}.*\n)*? {4}kind: ['"]?([^'"\s]+)/m.exec(text)?.[1];
      if (group && kind) {
        this.crdOrigins.set(`${group}/${kind}`, `crds/${f}`);
        this.crdFiles.set(`${group}/${kind}`, file);
        this.crdScopes.set(`${group}/${kind}`, !/^ {2}scope: ['"]?Cluster/m.test(text));
      } else this.parseCrd(file);
    }
  }

  private parseCrd(file: string): void {
    const text = fs.readFileSync(file, 'utf8');
    // the fast reader gives what YAML.parse gives (src/rules/fast-yaml.ts), several times faster
    const docs = readDocuments(text, '1.2');
    const crd = (docs?.length === 1 ? docs[0].value : YAML.parse(text)) as {
      spec: {
        group: string;
        scope?: string;
        names: { kind: string };
        versions: { name: string; schema?: { openAPIV3Schema: Json } }[];
      };
    };
    this.crdScopes!.set(`${crd.spec.group}/${crd.spec.names.kind}`, crd.spec.scope !== 'Cluster');
    if (!this.crdOrigins.has(`${crd.spec.group}/${crd.spec.names.kind}`))
      this.crdOrigins.set(`${crd.spec.group}/${crd.spec.names.kind}`, `crds/${path.basename(file)}`);
    for (const v of crd.spec.versions)
      if (v.schema)
        this.crdSchemas!.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, v.schema.openAPIV3Schema);
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
      const props = {
        ...(crd.properties as Json),
        metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      };
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

  /**
   * Whether the kind is one the cluster validation knows: a Kubernetes kind of this version or a
   * kind of the pinned CRDs (with their schemas), or without schemas a kind of a built-in group.
   * Another kind (eksctl's ClusterConfig, kind's Cluster, a Backstage entity, another operator's
   * resource) may never be sent to an API server, and nothing is known of how one would validate it.
   */
  public covers(apiVersion: string, kind: string): boolean {
    return this.hasSchemas ? this.knows(apiVersion, kind) : BUILTIN_GROUPS.has(groupOf(apiVersion));
  }

  /**
   * The pinned CRD file (`crds/<name>.yaml`) a custom kind is validated against, or undefined (a built-in kind, or
   * none).
   */
  public crdFileOf(apiVersion: string, kind: string): string | undefined {
    this.load();
    return this.crdOrigins.get(`${groupOf(apiVersion)}/${kind}`);
  }

  /** Every problem of one object. */
  public check(obj: unknown, pass: Pass = new Pass()): ClusterProblem[] {
    const o = obj as Json;
    const meta = (o && typeof o.metadata === 'object' ? o.metadata : {}) as Json;
    const ref = `${String(o?.kind ?? '?')}/${
      meta.namespace ? `${String(meta.namespace)}/` : ''
    }${String(meta.name ?? '?')}`;
    const out: ClusterProblem[] = [];
    // an empty apiVersion or kind is no kind either: kubectl and Argo CD refuse the document ("Object 'Kind' is
    // missing")
    if (
      !o ||
      typeof o !== 'object' ||
      typeof o.apiVersion !== 'string' ||
      typeof o.kind !== 'string' ||
      o.apiVersion === '' ||
      o.kind === ''
    ) {
      return [{ object: ref, path: '/', message: 'has no apiVersion and kind', source: 'schema' }];
    }
    if (this.hasSchemas) {
      const node = this.nodeFor(o.apiVersion, o.kind);
      // A kind of neither Kubernetes nor the pinned CRDs (another operator's) has no schema here;
      // the caller reports those as unchecked.
      if (node) {
        const problems: SchemaProblem[] = [];
        // the walk starts at the root (a pass left mid-walk by a throw starts over)
        pass.segments.length = 0;
        pass.quiet = 0;
        node.check(o, problems, pass);
        const builtin = BUILTIN_GROUPS.has(groupOf(o.apiVersion));
        const defaulted = DEFAULTED_REQUIRED.get(`${groupOf(o.apiVersion)}/${o.kind}`);
        for (const p of problems) {
          // A built-in kind's status is the controllers' to write: on create the API server discards
          // what the manifest says ("create cannot set status", kubernetes
          // pkg/registry/apps/statefulset/strategy.go PrepareForCreate, read in the code index's
          // copies; the other strategies do the same), so a field its definition requires
          // (StatefulSetStatus.replicas under `status: {}`) is never missing.
          if (p.message === 'is required' && (defaulted?.has(p.path) || (builtin && p.path.startsWith('/status/'))))
            continue;
          out.push({
            object: ref,
            path: p.path || '/',
            message: p.message,
            source: p.source,
            ...(p.value !== undefined ? { value: p.value } : {}),
          });
        }
      }
    }
    const namespaced = BUILTIN_GROUPS.has(groupOf(o.apiVersion))
      ? undefined
      : this.crdScopes?.get(`${groupOf(o.apiVersion)}/${o.kind}`);
    for (const p of builtinProblems(o, this.version, { namespaced }))
      out.push({
        object: ref,
        path: p.path,
        message: p.message,
        source: 'builtin',
        ...(p.value !== undefined ? { value: p.value } : {}),
      });
    return out;
  }
}

/** The schema folder, or undefined when none of the candidates holds the pinned files. */
export function findSchemaDir(version: KubernetesVersion = KubernetesVersion.V1_28): string | undefined {
  for (const dir of schemaDirCandidates()) {
    if (fs.existsSync(path.join(dir, 'schemas', version.schemaFile)) && fs.existsSync(path.join(dir, 'crds')))
      return dir;
  }
  return undefined;
}

/** "Kind/name /path: message [source]" as synth and lint print a problem. */
export function formatClusterProblem(p: ClusterProblem): string {
  const what = p.source === 'cel' ? 'CRD validation rule' : p.source === 'builtin' ? 'API server validation' : 'schema';
  return `${p.object} ${p.path}: ${p.message} (${what})`;
}
