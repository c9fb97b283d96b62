import { ApiObject, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';
import { reasonProblem } from '../decisions/reason';
import { RollwiseInputError } from '../errors';
import { ANNOTATIONS, parseFieldPath } from '../justify/annotations';
import { formatReasonLines, parseReasonLines } from '../justify/reasons';
import { Json } from '../rules/k8s';
import { RenderedApp } from '../synth/rendered-app';

/**
 * cdk8s keeps an ApiObject's escape-hatch patches in a private `patches` array and applies them in
 * toJson() after resolving Lazy values (node_modules/cdk8s/lib/api-object.js, cdk8s 2.70.106:
 * `JsonPatch.apply(json, ...this.patches)`); the L1 classes (KubeDeployment, ...) then convert the
 * patched JSON again, which drops values of the wrong shape. Reading the array is the only way to
 * render an object without its patches, so a decided value a patch changed can be named.
 */
interface WithPatches {
  patches?: JsonPatch[];
}

/**
 * Patches rollwise itself adds while rendering (a field its L1 classes cannot express, such as the
 * 1.29+ `preStop.sleep` that cdk8s-plus-28's converter drops): part of the decided rendering, so
 * the "unpatched" comparison keeps them and only the user's escape-hatch patches are taken out.
 */
const renderingPatches = new WeakSet<JsonPatch>();

/** Whether a patch is rollwise's own rendering (not an escape hatch of the user's). */
export function isRenderingPatch(p: JsonPatch): boolean {
  return renderingPatches.has(p);
}

/** Marks patches as rollwise's own rendering (see `renderingPatches`) and returns them. */
export function renderingPatch(...patches: JsonPatch[]): JsonPatch[] {
  for (const p of patches) renderingPatches.add(p);
  return patches;
}

/** The final objects of a construct subtree, each also rendered without the user's patches. */
export interface FinalObjects {
  objects: Json[];
  unpatched: (Json | undefined)[];
  /**
   * Whether each object carries an escape-hatch patch of the user's (rollwise's own rendering patches do not count).
   */
  patched: boolean[];
}

/**
 * The final objects of a construct subtree as the one render of the synth pass wrote them
 * (synth/render-checks.ts), each also rendered without the user's patches. Nothing is cached: a
 * second synth() renders again, so a patch or Lazy value changed after a first synth is seen.
 */
export function finalObjects(scope: Construct, rendered: RenderedApp): FinalObjects {
  const objects: Json[] = [];
  const unpatched: (Json | undefined)[] = [];
  const patched: boolean[] = [];
  for (const { apiObject: o, json } of rendered.objectsOf(scope)) {
    objects.push(json as Json);
    const u = unpatchedRender(o, json as Json);
    unpatched.push(u.unpatched);
    patched.push(u.patched);
  }
  return { objects, unpatched, patched };
}

/**
 * An ApiObject rendered without the user's escape-hatch patches (rollwise's own rendering patches
 * kept), with whether it has any: `json` itself when it has none, undefined when it cannot be
 * rendered without them.
 */
export function unpatchedRender(o: ApiObject, json: Json): { patched: boolean; unpatched: Json | undefined } {
  const holder = o as unknown as WithPatches;
  const saved = holder.patches;
  // When `saved` is not an array, the next line returns before `own` is read.
  // Stryker disable next-line ArrayDeclaration: `own` is not read then (above)
  const own = Array.isArray(saved) ? saved.filter((p) => renderingPatches.has(p)) : [];
  if (!Array.isArray(saved) || saved.length === own.length) return { patched: false, unpatched: json };
  holder.patches = own;
  try {
    return { patched: true, unpatched: o.toJson() as Json };
  } catch {
    return { patched: true, unpatched: undefined };
  } finally {
    holder.patches = saved;
  }
}

/**
 * Why an object with an escape-hatch patch failed to render (fast-json-patch's TypeError names
 * neither the object nor the patch), or undefined when the object has no patch of the user's
 * (the error is then not about a patch and is passed on as it is).
 */
export function patchFailure(o: ApiObject, e: unknown): string | undefined {
  const userPatches = ((o as unknown as WithPatches).patches ?? []).filter((p) => !renderingPatches.has(p));
  if (userPatches.length === 0) return undefined;
  const detail = (e as Error).message.replace(/^Failed serializing construct at path '[^']*' with name '[^']*': /, '');
  // fast-json-patch and the L1 converters fail with TypeErrors that name neither field nor patch.
  const why = /TypeError|is not a function|Cannot read propert|is not iterable/.test(detail)
    ? 'a path in it runs through a field or list item that does not exist in the rendered object, or it sets a value ' +
      'of the wrong type (e.g. a number where the schema has a list)'
    : detail;
  return (
    `${o.kind}/${o.name} (${o.node.path}): an escape-hatch patch cannot be applied ` +
    `(${describePatches(o)}): ${why}. Fix: patch only paths that exist in the rendered object (see dist/ or ` +
    `\`rollwise explain\`), or use "add" for a new field.`
  );
}

function describePatches(o: ApiObject): string {
  // describePatches runs only after patchFailure found user patches, so `patches` is an array here.
  // Stryker disable next-line ArrayDeclaration: `patches` is an array here (above)
  const patches = ((o as unknown as WithPatches).patches ?? []).filter((p) => !renderingPatches.has(p));
  // JsonPatch keeps its operation private too; `_toJson()` is what JsonPatch.apply itself calls.
  const ops = patches.map((p) => (p as unknown as { _toJson(): { op: string; path: string } })._toJson());
  return ops.map((p) => `${p.op} ${p.path}`).join(', ') || 'none';
}

/**
 * Records that a patched value at `path` is accepted with `because`: the object's
 * `rollwise.dev/overrides` line for the path (which the invariants and lint accept) and its
 * `rollwise.dev/reasons` line (which the YAML comment and `explain` show).
 */
export function acceptPatchedValue(object: ApiObject, path: string, because: string): void {
  try {
    parseFieldPath(path);
  } catch {
    throw new RollwiseInputError(
      'acceptPatch(path)',
      path,
      'is not a field path like "spec.template.spec.containers[0].resources.limits.cpu".',
      'give the path as the reasons and lint findings print it.',
    );
  }
  const problem = reasonProblem(because);
  if (problem !== undefined) {
    throw new RollwiseInputError(
      `acceptPatch(${path}).because`,
      because,
      `an accepted patch must carry its reason, and ${problem}.`,
      `say why the patched ${path} is right for this service.`,
    );
  }
  const annotations = (object.metadata.toJson() as { annotations?: Record<string, string> }).annotations ?? {};
  const reason = `Patched: ${because.trim()}`;
  for (const key of [ANNOTATIONS.overrides, ANNOTATIONS.reasons]) {
    const lines = parseReasonLines(annotations[key] ?? '');
    lines[path] = reason;
    object.metadata.addAnnotation(key, formatReasonLines(lines));
  }
}
