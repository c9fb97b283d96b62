import * as fs from 'fs';
import * as path from 'path';
import { DocApply, readmeApplies, repoDocApplies } from './applied-evidence';
import { applyArgoCd } from './argo-cd-sources';
import { fluxApplies, fluxFolders } from './flux-sources';
import { ENGINE_RULES } from './catalogue';
import { KUSTOMIZATION_FILES } from './kustomization-files';
import {
  FolderMemo,
  isPatchShaped,
  Kustomization,
  kustomizationFileIn,
  namesFileInComment,
  patchesTargeting,
  plainAggregation,
  readKustomization,
  unchangedTree,
  walk,
  withBundleInputs,
} from './kustomization-read';
import {
  findKustomize,
  hasPointer,
  KustomizeRenderer,
  parseRendered,
  patchAdding,
  renderAll,
  Rendered,
  takeOrigin,
} from './kustomize-render';
import { renderCacheDir, writeParsedRender } from './render-cache';
import { ObjectScope, ownScope } from './scope';
import { LintObject, objectWithLines, parseManifestText, ParsedSource } from './source';
import { Finding, FindingValue, ParseProblem } from './types';

/**
 * How the files of a scan are deployed: the kustomizations that include them (rendered with
 * kustomize where it is installed, else read file by file with their namespace defaults) and the
 * Argo CD Applications that sync their folders. The result is what the engine lints: the objects,
 * each with its scope (scope.ts), and notes about what could not be rendered.
 *
 * layoutScan is here; its parts are one file each: kustomize-render.ts (finding and running
 * kustomize, reading its output), kustomization-read.ts (kustomization files read without
 * kustomize), argo-cd-sources.ts (Argo CD Applications), applied-evidence.ts (documents, scripts
 * and CI workflows that `kubectl apply -f` a file) and flux-sources.ts (Flux Kustomizations). The exports of those that other modules use are re-exported below.
 */
export { findKustomize, renderEnv } from './kustomize-render';
export type { KustomizeRenderer } from './kustomize-render';
export { isPatchShaped, patchPathsFromText } from './kustomization-read';

export interface LayoutInput {
  readonly file: string;
  readonly text: string;
}

export interface LayoutOptions {
  /** The renderer; `null` never renders. @default findKustomize() */
  readonly kustomize?: KustomizeRenderer | null;
  /** The repository root, for Argo CD Application source paths. @default - the working directory */
  readonly repoRoot?: string;
  /** Seconds a render may take. @default 60 */
  readonly renderTimeoutSeconds?: number;
  /** Where renders are cached (render-cache.ts); `null` caches nothing. @default renderCacheDir() */
  readonly renderCache?: string | null;
}

export interface Layout {
  readonly objects: LintObject[];
  readonly problems: ParseProblem[];
  readonly scopes: Map<LintObject, ObjectScope>;
  readonly notes: Finding[];
  /** Per input file, as parsed (for the scan summary). */
  readonly parsed: ReadonlyMap<string, ParsedSource>;
  /**
   * Per input file read file by file: what shows it is applied as it is written (the evidence of
   * ObjectScope.appliedAsIs, for the file itself), for the error gate (applied-gate.ts) on findings
   * about a document (RW000, RW001), which may have no object.
   */
  readonly appliedFiles: ReadonlyMap<string, string>;
}

/** A note finding about a kustomization (RW010) at its file. */
function note(file: string, message: string, values: Record<string, FindingValue>): Finding {
  const r = ENGINE_RULES.kustomizationNotRendered;
  return {
    ruleId: r.id,
    severity: r.severity,
    file,
    line: 0,
    kind: 'Kustomization',
    name: path.dirname(file),
    object: `Kustomization/${path.dirname(file)}`,
    path: '',
    message,
    mechanism: `${r.mechanism} (${r.fieldNotes})`,
    fix: r.fix,
    values,
    status: 'open',
  };
}

/**
 * Reads the inputs, renders the kustomizations it can, and gives every object its scope. A file
 * that every kustomization including it rendered is linted as rendered; the others file by file.
 */
export function layoutScan(inputs: readonly LayoutInput[], opts: LayoutOptions = {}): Layout {
  const renderer = opts.kustomize === undefined ? findKustomize() : (opts.kustomize ?? undefined);
  const parsed = new Map<string, ParsedSource>();
  for (const i of inputs) parsed.set(i.file, parseManifestText(i.text, i.file));
  const byAbs = new Map<string, string>();
  for (const i of inputs) if (!i.file.startsWith('<')) byAbs.set(path.resolve(i.file), i.file);
  const shown = (abs: string): string => byAbs.get(abs) ?? path.relative(process.cwd(), abs);

  // The kustomizations of the scan and their roots (those no other kustomization of the scan includes).
  const cache = new Map<string, Kustomization | null>();
  const memo: FolderMemo = { files: new Map() };
  const dirs = new Set<string>();
  const looked = new Set<string>();
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const dir = path.resolve(path.dirname(i.file));
    if (KUSTOMIZATION_FILES.includes(path.basename(i.file))) {
      dirs.add(dir);
      continue;
    }
    // An extension-less `Kustomization` is not among the scanned files: look once per folder.
    if (!looked.has(dir)) {
      looked.add(dir);
      if (kustomizationFileIn(dir, memo)) dirs.add(dir);
    }
  }
  const ks = [...dirs].map((d) => readKustomization(d, cache)).filter((k): k is Kustomization => !!k);
  const included = new Set<string>();
  for (const k of ks) for (const w of walk(k, cache).slice(1)) included.add(w.k.dir);
  const topRoots = ks.filter((k) => !included.has(k.dir));
  // A file's parse: a scanned file's, else the file read once per scan.
  const fromDisk = new Map<string, ParsedSource | undefined>();
  const source = (abs: string): ParsedSource | undefined => {
    const shownName = byAbs.get(abs);
    if (shownName !== undefined) return parsed.get(shownName);
    if (!fromDisk.has(abs)) {
      try {
        fromDisk.set(abs, parseManifestText(fs.readFileSync(abs, 'utf8'), shown(abs)));
      } catch {
        fromDisk.set(abs, undefined);
      }
    }
    return fromDisk.get(abs);
  };
  // Only renders differ for a bundle input; without a renderer every tree is read file by file.
  const { roots, bundles } = renderer
    ? withBundleInputs(topRoots, cache, source, shown, byAbs)
    : { roots: topRoots, bundles: new Map<string, string>() };

  /** Per absolute file: the roots that include it, the namespace each gives it. */
  const membership = new Map<string, { root: Kustomization; namespace?: string; from?: string }[]>();
  const patchFiles = new Set<string>();
  for (const root of roots) {
    for (const w of walk(root, cache)) {
      for (const f of w.k.files)
        (membership.get(f) ?? membership.set(f, []).get(f)!).push({ root, namespace: w.namespace, from: w.from });
      for (const p of w.k.patchFiles) patchFiles.add(p);
    }
  }
  // A kustomization above the scanned folders (lint given overlays/prod/patches/ alone) can still
  // name a scanned file as its patch: its folder is not rendered or linted, only read for that.
  const repoRoot = path.resolve(opts.repoRoot ?? process.cwd());
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const abs = path.resolve(i.file);
    if (patchFiles.has(abs) || membership.has(abs) || !abs.startsWith(`${repoRoot}${path.sep}`)) continue;
    for (let dir = path.dirname(path.dirname(abs)); dir.startsWith(repoRoot); dir = path.dirname(dir)) {
      if (!dirs.has(dir) && kustomizationFileIn(dir, memo)) {
        const k = readKustomization(dir, cache);
        if (k && walk(k, cache).some((w) => w.k.patchFiles.includes(abs))) {
          patchFiles.add(abs);
          break;
        }
      }
      if (dir === repoRoot) break;
    }
  }

  // A file beside a kustomization that does not list it as a resource is not part of that build.
  // When the kustomization names it in a comment (a patch entry commented out, as kubebuilder's
  // config/default ships manager_auth_proxy_patch.yaml), or every object in it has the shape of a
  // strategic-merge patch (a workload with neither a selector nor any container image), it is a
  // patch kept for later, not an object anyone applies as it is.
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const abs = path.resolve(i.file);
    if (patchFiles.has(abs) || membership.has(abs) || KUSTOMIZATION_FILES.includes(path.basename(abs))) continue;
    const k = readKustomization(path.dirname(abs), cache);
    if (!k) continue;
    const objs = parsed.get(i.file)!.objects;
    if (objs.length === 0) continue;
    if (namesFileInComment(k.file, path.basename(abs)) || objs.every((o) => isPatchShaped(o.obj))) patchFiles.add(abs);
  }

  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  const scopes = new Map<LintObject, ObjectScope>();
  const notes: Finding[] = [];
  const rendered = new Set<string>();
  /** Objects of OLM bundle inputs' renders, added after the other renders (withBundleInputs). */
  const bundleObjects: { obj: LintObject; scope: ObjectScope }[] = [];
  const readmes = new Map<string, string[]>();
  const appliedFiles = new Map<string, string>();
  const docs = new Map<string, DocApply[]>();
  /** Folders Flux Kustomizations of the scan apply as written (flux-sources.ts). */
  const flux = fluxFolders(parsed, repoRoot);
  /** Roots kustomize failed to render: nothing of theirs is shown to be applied. */
  const failed = new Set<string>();

  // The roots kustomize renders (the loop below says why each other root is not), all at once.
  // A kustomization that only gathers files (one, or a tree of them) is read file by file; one that
  // gathers what kustomize would change or refuse (a List it expands, a missing file, a duplicate)
  // is rendered like one that transforms.
  // Only worth knowing where kustomize could render instead (without it, every root is read file by file).
  const plain = new Set(
    renderer ? roots.filter((root) => plainAggregation(walk(root, cache), source)).map((r) => r.dir) : [],
  );
  const renderable = (root: Kustomization): boolean => {
    const tree = walk(root, cache);
    return !plain.has(root.dir) && !root.component && !tree.some((w) => w.k.remote.length > 0 || w.k.helm);
  };
  const renderedDocs = new Map<string, ParsedSource>();
  const originPaths = new Map<string, string | undefined>();
  const renderCache = opts.renderCache === undefined ? renderCacheDir() : (opts.renderCache ?? undefined);
  const renders = renderer
    ? renderAll(roots.filter(renderable), renderer, opts.renderTimeoutSeconds ?? 60, renderCache, repoRoot)
    : new Map<string, Rendered>();

  for (const root of roots) {
    const tree = walk(root, cache);
    const transforms = [...new Set(tree.flatMap((w) => w.k.transforms))];
    const remote = tree.flatMap((w) => w.k.remote);
    const helm = tree.some((w) => w.k.helm);
    const rootFile = shown(root.file);
    const patches = tree.flatMap((w) => w.k.patchFiles).map(shown);
    const skipped = patches.length
      ? '; patch ' +
        `files ${patches.slice(0, 4).join(', ')}${patches.length > 4 ? ` and ${patches.length - 4} more` : ''} were ` +
        'skipped'
      : '';
    const without = `without ${
      transforms.length ? transforms.join(', ') : 'what kustomize changes (its bases ' + 'resolved as one build)'
    }${skipped}`;
    // plain resources (and a namespace, in a single kustomization): file by file is the same
    if (plain.has(root.dir)) continue;
    // One kustomization of resources that cannot be rendered here (no renderer, or remote entries):
    // file by file, as always, without a note.
    if (tree.length === 1 && transforms.length === 0 && (!renderer || remote.length > 0 || helm)) continue;
    if (root.component) continue; // a Component no kustomization of the scan uses: nothing to render
    if (!renderer) {
      notes.push(
        note(
          rootFile,
          'kustomize is not installed (neither kustomize nor kubectl on PATH, ROLLWISE_KUSTOMIZE unset), so the files ' +
            `of ${path.dirname(rootFile)} were linted one by ` +
            `one${root.namespace ? `, with its namespace ${root.namespace},` : ''} ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    if (remote.length > 0 || helm) {
      notes.push(
        note(
          rootFile,
          'not rendered: ' +
            `it ${
              remote.length
                ? `includes remote resources (${remote.slice(0, 2).join(', ')}), which need the network`
                : 'inflates Helm charts (helmCharts needs ' + '--enable-helm)'
            }; ` +
            `its local files were linted one by one, ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    const out = renders.get(root.dir)!;
    if ('error' in out) {
      failed.add(root.dir);
      notes.push(
        note(
          rootFile,
          `${renderer.label} ${path.dirname(rootFile)} failed (${out.error}); its files were linted one by ` +
            `one, ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    rendered.add(root.dir);
    const renderFolder = path.dirname(rootFile);
    const label = `${renderer.label} ${renderFolder}`;
    const outFile = `${rootFile} (${renderer.label})`;
    // A warm cache gives the parsed form (JSON) instead of YAML to parse again; stored before the
    // loop below edits the objects (takeOrigin).
    const docs = out.parsed
      ? { objects: out.parsed.objects, problems: out.parsed.problems.map((p) => ({ ...p, file: outFile })) }
      : parseRendered(out.text, outFile, renderedDocs);
    if (!out.parsed && out.key !== undefined && renderCache !== undefined)
      writeParsedRender(renderCache, out.key, out.base, docs);
    problems.push(...docs.problems);
    for (const o of docs.objects) {
      const origin = takeOrigin(o.obj, originPaths);
      const abs = origin ? path.resolve(out.base, origin) : undefined;
      // The origin file as parsed: a scanned file's parse, else the file read once per scan (source()
      // above), not once per rendered object: several roots render the same unscanned base files.
      // Looked up when a line is first asked for (a finding), not for every rendered object.
      let twin: LintObject | undefined | null = null;
      const twinOf = (): LintObject | undefined => {
        if (twin === null)
          twin = (abs ? source(abs) : undefined)?.objects.find(
            (s) => s.kind === o.kind && (s.name === o.name || o.name.endsWith(s.name) || o.name.startsWith(s.name)),
          );
        return twin;
      };
      const lineOf = (p: string): number => twinOf()?.line(p) ?? 0;
      const file = abs ? shown(abs) : rootFile;
      const obj = objectWithLines(o.obj, file, lineOf);
      const render = {
        folder: renderFolder,
        addedBy: (pointer: string): string | undefined => {
          const t = twinOf();
          if (t === undefined || hasPointer(t.obj, pointer)) return undefined;
          return patchAdding(tree, pointer, shown) ?? `the render of ${renderFolder}`;
        },
      };
      const bundle = bundles.get(root.dir);
      const scope = ownScope(obj, {
        builds: [`k:${root.dir}`],
        folder: root.dir,
        renderedBy: label,
        render,
        ...(bundle !== undefined ? { bundleInput: bundle } : { appliedAsIs: `the output of ${label}` }),
      });
      // A bundle input's object that another render outputs alike is linted once, in that render.
      if (bundle !== undefined) {
        bundleObjects.push({ obj, scope });
        continue;
      }
      objects.push(obj);
      scopes.set(obj, scope);
    }
  }

  const applied = new Set(
    bundleObjects.length === 0
      ? []
      : objects.filter((o) => scopes.get(o)?.renderedBy !== undefined).map((o) => JSON.stringify(o.obj)),
  );
  for (const { obj, scope } of bundleObjects) {
    if (applied.has(JSON.stringify(obj.obj))) continue;
    objects.push(obj);
    scopes.set(obj, scope);
  }

  // Every object read file by file: skip what a rendering already covers, and the patch files.
  for (const i of inputs) {
    const p = parsed.get(i.file)!;
    const abs = i.file.startsWith('<') ? i.file : path.resolve(i.file);
    const roots = membership.get(abs) ?? [];
    const includedBy = roots[0] ? shown(roots[0].root.file) : undefined;
    problems.push(...p.problems.map((x) => (x.duplicateKey && includedBy ? { ...x, includedBy } : x)));
    if (patchFiles.has(abs)) continue;
    if (roots.length > 0 && roots.every((r) => rendered.has(r.root.dir))) continue;
    const open = roots.filter((r) => !rendered.has(r.root.dir));
    const namespaces = [...new Set(open.map((r) => r.namespace))];
    const ns = namespaces.length === 1 ? namespaces[0] : undefined;
    const from = ns !== undefined ? open.find((r) => r.namespace === ns)?.from : undefined;
    // Applied as written: piped in (what `kubectl kustomize ... | rollwise lint -` gives), or listed
    // as a resource by kustomizations none of which changes anything on the way to the output.
    const asIs =
      abs === '<stdin>'
        ? 'read from standard input (what is piped in is taken as what is applied)'
        : open.length > 0 && open.every((r) => !failed.has(r.root.dir) && unchangedTree(walk(r.root, cache)))
          ? `listed as a resource by ${shown(open[0].root.file)}, which changes nothing on the way to the output (no ` +
            'patch, generator, replacement or transformer)'
          : open.length === 0
            ? (readmeApplies(abs, readmes) ?? repoDocApplies(abs, repoRoot, docs) ?? fluxApplies(abs, flux))
            : undefined;
    if (asIs) appliedFiles.set(i.file, asIs);
    const supplied =
      open.length === 0 && !abs.startsWith('<')
        ? patchesTargeting(abs, p.objects, repoRoot, cache, memo)
        : new Map<LintObject, { pointers: string[]; by: string }>();
    for (const o of p.objects) {
      objects.push(o);
      const sup = supplied.get(o);
      scopes.set(
        o,
        ownScope(
          o,
          {
            builds: open.map((r) => `k:${r.root.dir}`),
            ...(ns !== undefined
              ? { namespace: ns, namespaceFrom: `namespace: ${ns} in ${from ? shown(from) : 'its kustomization'}` }
              : {}),
            ...(asIs ? { appliedAsIs: asIs } : {}),
            ...(sup ? { suppliedByPatch: sup } : {}),
            // The outermost kustomization's namespace replaces the object's own (kubebuilder's
            // `namespace: system` placeholder), so the tree's objects share it: a PDB of the tree
            // meets its workload (open-policy-agent/gatekeeper config/, whose render failed).
          },
          ns !== undefined && open.length > 0,
        ),
      );
    }
  }

  applyArgoCd(objects, scopes, opts.repoRoot ?? process.cwd());
  return { objects, problems, scopes, notes, parsed, appliedFiles };
}
