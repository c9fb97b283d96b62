import * as path from 'path';
import { rec, Resolution, str } from './k8s';
import { LintObject } from './source';

export type { Resolution } from './k8s';

/**
 * Where an object meets other objects in a cluster: the namespace it lands in and the application
 * it is deployed with. Cross-object rules (a Rollout's Services, a workload's PDB and HPA, a route's
 * backends and policies) look only at objects in the same scope, because real repositories hold
 * many applications, and kustomize bases and overlays hold objects of the same name on purpose.
 */
export interface ObjectScope {
  /**
   * The namespace the object is applied to: its own `metadata.namespace`, else the default that a
   * kustomization including it (`namespace:`) or an Argo CD Application syncing its folder
   * (`spec.destination.namespace`) declares. Undefined when nothing says (left to `kubectl -n`).
   */
  readonly namespace?: string;
  /** Where a defaulted namespace came from, for messages. */
  readonly namespaceFrom?: string;
  /**
   * The deployments the object is part of: each kustomization root that includes it (`k:<dir>`),
   * each Argo CD Application that syncs its folder (`a:<name>`).
   */
  readonly builds: readonly string[];
  /** The folder of the file it came from. */
  readonly folder: string;
  /** `app.kubernetes.io/part-of`, when labelled. */
  readonly partOf?: string;
  /** `argocd.argoproj.io/instance` (the label Argo CD tracks applications by), when labelled. */
  readonly instance?: string;
  /** Set for objects read from a rendered kustomization: the command that rendered them. */
  readonly renderedBy?: string;
  /**
   * Set for objects read from a rendered kustomization: the kustomization folder rendered
   * (repo-relative, as findings show paths), and which part of the render put a field there when
   * the object's own file does not have it (a patch file, or a kustomization's inline patch).
   */
  readonly render?: RenderOrigin;
  /**
   * What shows the object is applied as it is written (layout.ts): the output of a kustomize
   * render, a file a kustomization lists as a resource with nothing between it and the output, a
   * file an Argo CD Application syncs as a plain directory, standard input. Undefined when nothing
   * shows it: the cluster stage (cluster-rules.ts) is then a warning, not an error.
   */
  readonly appliedAsIs?: string;
  /**
   * Set for objects of a render that is an OLM bundle input (layout.ts withBundleInputs): why
   * kubectl does not apply it. The cluster stage is then information, not an error.
   */
  readonly bundleInput?: string;
  /**
   * JSON pointers a kustomization's JSON 6902 patch adds to this object (by a `target` that selects
   * it), when that kustomization was not rendered: the fields are supplied by the patch, not
   * missing (cloud-native-toolkit/multi-tenancy-gitops adds an Application's repoURL so).
   */
  readonly suppliedByPatch?: { readonly pointers: readonly string[]; readonly by: string };
}

/** Where a rendered object came from, for findings to name the render (layout.ts). */
export interface RenderOrigin {
  /** The kustomization folder rendered, repo-relative: `config/olm-manifests`. */
  readonly folder: string;
  /**
   * For a JSON pointer of the rendered object: undefined when the object's own file has the field
   * (or that file is not known), else what in the render adds it ("config/olm-default/
   * webhook_mutating_port_patch.yaml", or "the render of <folder>" when no patch names it).
   */
  readonly addedBy: (pointer: string) => string | undefined;
}

/**
 * The words a finding on a rendered object adds: the render's folder, and, when the object's file
 * lacks the field, that the render (and which patch of it) adds the field. Undefined for objects
 * read file by file.
 */
export function renderNote(scope: ObjectScope | undefined, pointer: string, file: string): string | undefined {
  const r = scope?.render;
  if (r === undefined) return undefined;
  const added = pointer === '' ? undefined : r.addedBy(pointer);
  return (
    'in the render ' +
    `of ${r.folder}${added !== undefined ? `; ${file} does not have this field: ${added} adds it` : ''}`
  );
}

function labelsOf(o: LintObject): Record<string, unknown> {
  return rec(rec(o.obj.metadata)?.labels) ?? {};
}

/**
 * The scope an object has on its own: its namespace, its file's folder and its labels. With
 * `kustomized`, `extra.namespace` is a kustomization's `namespace:` and replaces the object's own,
 * as kustomize's namespace transformer does for namespaced objects (kubernetes-sigs/kustomize
 * kustomize/v5.5.0 api/filters/namespace/namespace.go fieldSetter: SetEntry, not SetEntryIfEmpty,
 * unless unsetOnly, which the `namespace:` field leaves false, api/internal/target/
 * kusttarget_configplugin.go NamespaceTransformer).
 */
export function ownScope(o: LintObject, extra: Partial<ObjectScope> = {}, kustomized = false): ObjectScope {
  const labels = labelsOf(o);
  const replaced =
    kustomized && extra.namespace !== undefined && o.namespace !== undefined && o.namespace !== extra.namespace;
  return {
    namespace: replaced ? extra.namespace : (o.namespace ?? extra.namespace),
    ...((o.namespace === undefined || replaced) && extra.namespaceFrom ? { namespaceFrom: extra.namespaceFrom } : {}),
    builds: extra.builds ?? [],
    folder: extra.folder ?? path.dirname(o.file),
    ...(str(labels['app.kubernetes.io/part-of']) ? { partOf: str(labels['app.kubernetes.io/part-of']) } : {}),
    ...(str(labels['argocd.argoproj.io/instance']) ? { instance: str(labels['argocd.argoproj.io/instance']) } : {}),
    ...(extra.renderedBy ? { renderedBy: extra.renderedBy } : {}),
    ...(extra.render ? { render: extra.render } : {}),
    ...(extra.appliedAsIs ? { appliedAsIs: extra.appliedAsIs } : {}),
    ...(extra.bundleInput ? { bundleInput: extra.bundleInput } : {}),
    ...(extra.suppliedByPatch ? { suppliedByPatch: extra.suppliedByPatch } : {}),
  };
}

/**
 * Whether two objects are deployed as one application: the same kustomization build or Argo CD
 * Application, else the same `part-of` / Argo CD instance label (different labels mean different
 * applications, even in one folder), else the same folder.
 */
export function sameApplication(a: ObjectScope, b: ObjectScope): boolean {
  if (a.builds.length > 0 && b.builds.length > 0) {
    if (a.builds.some((x) => b.builds.includes(x))) return true;
    // Two renderings of one base (dev and prod overlays) are two applications.
    if (a.renderedBy || b.renderedBy) return false;
  }
  if (a.instance !== undefined && b.instance !== undefined) return a.instance === b.instance;
  if (a.partOf !== undefined && b.partOf !== undefined) return a.partOf === b.partOf;
  return a.folder === b.folder;
}

/** Whether an object in scope `b` can be in the namespace `ns` (undefined: not known, so any). */
function namespaceFits(ns: string | undefined, b: ObjectScope): boolean {
  return ns === undefined || b.namespace === undefined || ns === b.namespace;
}

/** A few object references with their files, for messages: "Service/a (x/svc.yaml), Service/a (y/svc.yaml)". */
export function describeObjects(objs: readonly LintObject[], max = 3): string {
  const shown = objs.slice(0, max).map((o) => `${o.ref} (${o.file})`);
  return objs.length > max ? `${shown.join(', ')} and ${objs.length - max} more` : shown.join(', ');
}

/** Objects of the run indexed by scope. */
export class ScopeIndex {
  private readonly scopes: ReadonlyMap<LintObject, ObjectScope>;
  private readonly byKindName = new Map<string, LintObject[]>();
  private readonly byKind = new Map<string, LintObject[]>();
  /** By kind and namespace ('' for objects whose namespace is not known). */
  private readonly byKindNs = new Map<string, LintObject[]>();

  constructor(objects: readonly LintObject[], scopes?: ReadonlyMap<LintObject, ObjectScope>) {
    const own = new Map<LintObject, ObjectScope>();
    for (const o of objects) {
      const sc = scopes?.get(o) ?? ownScope(o);
      own.set(o, sc);
      const kn = `${o.kind}\u0000${o.name}`;
      (this.byKindName.get(kn) ?? this.byKindName.set(kn, []).get(kn)!).push(o);
      (this.byKind.get(o.kind) ?? this.byKind.set(o.kind, []).get(o.kind)!).push(o);
      const ks = `${o.kind}\u0000${sc.namespace ?? ''}`;
      (this.byKindNs.get(ks) ?? this.byKindNs.set(ks, []).get(ks)!).push(o);
    }
    this.scopes = own;
  }

  /** Objects of a kind that can be in `namespace`: those in it and those whose namespace is not known. */
  private candidates(kind: string, namespace: string | undefined): readonly LintObject[] {
    if (namespace === undefined) return this.byKind.get(kind) ?? [];
    return [...(this.byKindNs.get(`${kind}\u0000${namespace}`) ?? []), ...(this.byKindNs.get(`${kind}\u0000`) ?? [])];
  }

  public scopeOf(o: LintObject): ObjectScope {
    return this.scopes.get(o) ?? ownScope(o);
  }

  /** The namespace an object lands in (its own, or the declared default). */
  public namespaceOf(o: LintObject): string | undefined {
    return this.scopeOf(o).namespace;
  }

  /** Whether `b` is deployed with `a` (same application) and can share its namespace. */
  public together(a: LintObject, b: LintObject, namespace = this.namespaceOf(a)): boolean {
    const sb = this.scopeOf(b);
    return namespaceFits(namespace, sb) && sameApplication(this.scopeOf(a), sb);
  }

  /**
   * Resolves a reference from `from` to an object of `kind` named `name`. `namespace` is the
   * reference's explicit namespace, if it names one; a reference into another namespace (a
   * cross-namespace backendRef) is resolved by namespace alone, since it leaves the application.
   */
  public resolve(from: LintObject, kind: string, name: string, namespace?: string): Resolution {
    const all = this.byKindName.get(`${kind}\u0000${name}`) ?? [];
    const own = this.namespaceOf(from);
    const crossNamespace = namespace !== undefined && own !== undefined && namespace !== own;
    const ns = namespace ?? own;
    const inScope = all.filter(
      (c) =>
        c !== from &&
        (crossNamespace
          ? // Into another namespace: an object there, or one without a namespace deployed with the reference.
            this.namespaceOf(c) === ns ||
            (this.namespaceOf(c) === undefined && sameApplication(this.scopeOf(from), this.scopeOf(c)))
          : this.together(from, c, ns)),
    );
    if (inScope.length === 1) return { found: inScope[0] };
    // Two definitions of one object deployed together: the one written beside the reference (same
    // file) is the one its author meant; otherwise the scan cannot tell which one the cluster keeps.
    const sameFile = inScope.filter((c) => c.file === from.file);
    if (sameFile.length === 1) return { found: sameFile[0] };
    if (inScope.length > 1) return { ambiguous: inScope };
    // Elsewhere: first those that could share the namespace (another application's), else any.
    const others = all.filter((c) => c !== from);
    const sameNs = others.filter((c) => namespaceFits(ns, this.scopeOf(c)));
    return { missing: true, elsewhere: sameNs.length > 0 ? sameNs : others };
  }

  /** Objects of a kind deployed with `from` (same application, compatible namespace). */
  public inScope(from: LintObject, kind: string, namespace = this.namespaceOf(from)): LintObject[] {
    return this.candidates(kind, namespace).filter((c) => c !== from && this.together(from, c, namespace));
  }

  /** Objects of a kind that could share the namespace but belong to another application. */
  public outOfScope(from: LintObject, kind: string): LintObject[] {
    const ns = this.namespaceOf(from);
    return this.candidates(kind, ns).filter(
      (c) => c !== from && namespaceFits(ns, this.scopeOf(c)) && !sameApplication(this.scopeOf(from), this.scopeOf(c)),
    );
  }
}
