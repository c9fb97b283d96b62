import {
  ApiObject,
  ApiObjectMetadataDefinition,
  App,
  ImplicitTokenResolver,
  IResolver,
  JsonPatch,
  Lazy,
  LazyResolver,
  NumberStringUnionResolver,
} from 'cdk8s';
// cdk8s does not export its sanitizer from the package's index; the package has no "exports" map, so
// this is the very function ApiObject.toJson() calls (cdk8s 2.70.106 lib/_util.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sanitizeValue } = require('cdk8s/lib/_util') as {
  sanitizeValue: (
    obj: unknown,
    options?: { sortKeys?: boolean; filterEmptyArrays?: boolean; filterEmptyObjects?: boolean },
  ) => unknown;
};

/**
 * A cheaper `ApiObject.prototype.toJson()` with the same result, for synth's render (render.ts).
 *
 * What cdk8s does (cdk8s 2.70.106, lib/api-object.js `toJson`, lib/metadata.js `toJson`,
 * lib/resolve.js `resolve`, lib/app.js constructor): the object's data, with `metadata.toJson()`,
 * goes through `resolve([], data, this)`, then `sanitizeValue(.., { sortKeys })`, then the JSON
 * patches, then its top-level keys are reordered (apiVersion, kind, metadata first). `resolve`
 * visits every value of the object; at each one it reads `App.of(apiObject).resolvers` (a walk up
 * the construct tree), allocates a `ResolutionContext` and a key path (`[...key, k]`), and asks
 * each resolver in turn; the first that replaces the value wins and the replacement is resolved
 * again; else an array is resolved item by item, a plain object (`constructor == Object`) key by
 * key, and anything else is kept as it is. A 1,000-service synth spent about 0.5 s of its CPU
 * profile there (docs/performance.md).
 *
 * `fastResolve` below makes the same decisions in the same order when the app's resolvers are
 * exactly cdk8s' three built-in ones (`new App()` without `resolvers`: LazyResolver, then
 * ImplicitTokenResolver, then NumberStringUnionResolver, each an instance of that very class):
 * 1. LazyResolver: `value instanceof Lazy` -> `value.produce()`;
 * 2. ImplicitTokenResolver: `typeof value.resolve === 'function'` -> `value.resolve()`;
 * 3. NumberStringUnionResolver: unless `value.constructor === Object`, when `typeof value.value` is
 *    'number' or 'string' -> `{ value: value.value }`;
 * the replacement is then resolved again, as `resolve` does. None of the three reads the context's
 * object or key path, so they are not built, and the resolvers are read once per object instead of
 * at every value: the app is the construct tree's root, which does not change during a render, and
 * the list is the one the App's constructor made. With any other resolver (an app given
 * `resolvers`, or a resolver subclass), or a metadata object of another class, cdk8s' own
 * `toJson` runs. The sanitizer and the patches are cdk8s' own functions, called as cdk8s calls them.
 * test/synth/fast-render.test.ts compares the two on the bench estates, the repository's examples
 * and generated objects (Lazy values, tokens, unions, nested arrays, undefined and null, patches).
 */
export function fastToJson(o: ApiObject): unknown {
  if (!builtinResolversOnly(App.of(o) as App)) return ORIGINAL_TO_JSON.call(o);
  plainPrimitives = primitivesPlain();
  try {
    const data = { ...(o as unknown as { props: Record<string, unknown> }).props, metadata: metadataJson(o) };
    const sortKeys = process.env.CDK8S_DISABLE_SORT ? false : true;
    const json = sanitizeValue(fastResolve(data), { sortKeys });
    const patched = JsonPatch.apply(json, ...(o as unknown as { patches: JsonPatch[] }).patches) as Record<
      string,
      unknown
    >;
    const result: Record<string, unknown> = {};
    for (const k of ['apiVersion', 'kind', 'metadata', ...Object.keys(patched)])
      if (k in patched) result[k] = patched[k];
    return result;
  } catch (e) {
    // cdk8s' own message, and like cdk8s' error without a cause (patchFailure reads the message)
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`Failed serializing construct at path '${o.node.path}' with name '${o.name}': ${String(e)}`);
  }
}

/** cdk8s' own ApiObject.prototype.toJson, as loaded (before anything replaced it). */
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(object) only
const ORIGINAL_TO_JSON = ApiObject.prototype.toJson;

/**
 * Runs `render` with `ApiObject.prototype.toJson` replaced by `fastToJson`, so the generated classes'
 * `toJson()` (KubeService, PrometheusRule, ..., which call `super.toJson()` and convert the result)
 * get it too; restored afterwards, also on a throw.
 */
export function withFastToJson<T>(render: () => T): T {
  const proto = ApiObject.prototype as unknown as { toJson: () => unknown };
  // not ours to replace if something else already did (then its toJson is what runs)
  if (proto.toJson !== ORIGINAL_TO_JSON) return render();
  proto.toJson = function (this: ApiObject) {
    return fastToJson(this);
  };
  try {
    return render();
  } finally {
    proto.toJson = ORIGINAL_TO_JSON;
  }
}

const checkedApps = new WeakMap<App, { resolvers: readonly IResolver[]; builtin: boolean }>();

/** Whether the app's resolvers are exactly cdk8s' three built-in ones, in their order. */
function builtinResolversOnly(app: App): boolean {
  const resolvers = (app as unknown as { resolvers?: readonly IResolver[] }).resolvers;
  if (!Array.isArray(resolvers)) return false;
  const known = checkedApps.get(app);
  // the list is compared by identity and length: an app whose list was changed is looked at again
  if (known && known.resolvers === resolvers && resolvers.length === 3) return known.builtin;
  const builtin =
    resolvers.length === 3 &&
    Object.getPrototypeOf(resolvers[0]) === LazyResolver.prototype &&
    Object.getPrototypeOf(resolvers[1]) === ImplicitTokenResolver.prototype &&
    Object.getPrototypeOf(resolvers[2]) === NumberStringUnionResolver.prototype;
  checkedApps.set(app, { resolvers, builtin });
  return builtin;
}

interface MetadataFields {
  readonly _additionalAttributes: Record<string, unknown>;
  readonly name?: string;
  readonly namespace?: string;
  readonly annotations: Record<string, string>;
  readonly finalizers: string[];
  readonly ownerReferences: unknown[];
  readonly labels: Record<string, string>;
  toJson(): unknown;
}

const METADATA_PROTO = ApiObjectMetadataDefinition.prototype as unknown as MetadataFields;

/** `ApiObjectMetadataDefinition.toJson()` (cdk8s lib/metadata.js) with the resolve above. */
function metadataJson(o: ApiObject): unknown {
  const m = o.metadata as unknown as MetadataFields;
  if (Object.getPrototypeOf(m) !== METADATA_PROTO || m.toJson !== METADATA_PROTO.toJson) return m.toJson();
  return sanitizeValue(
    fastResolve({
      ...m._additionalAttributes,
      name: m.name,
      namespace: m.namespace,
      annotations: m.annotations,
      finalizers: m.finalizers,
      ownerReferences: m.ownerReferences,
      labels: m.labels,
    }),
    { filterEmptyArrays: true, filterEmptyObjects: true },
  );
}

/**
 * Whether no primitive's prototype (nor Object.prototype, which they inherit) has a `resolve` or
 * `value` property: then ImplicitTokenResolver and NumberStringUnionResolver read `undefined` on
 * every string, number, boolean, bigint and symbol, LazyResolver's `instanceof` is false for a
 * primitive, and resolve() returns a primitive as it is.
 */
function primitivesPlain(): boolean {
  for (const proto of [String.prototype, Number.prototype, Boolean.prototype, BigInt.prototype, Symbol.prototype])
    if ('resolve' in proto || 'value' in proto) return false;
  return true;
}

let plainPrimitives = false;

/** cdk8s' `resolve` with its three built-in resolvers, in their order (see fastToJson). */
function fastResolve(value: unknown): unknown {
  // as resolve(): `value == null` returns it as it is (null stays null, undefined undefined)
  if (value === null || value === undefined) return value;
  if (plainPrimitives && typeof value !== 'object' && typeof value !== 'function') return value;
  if (value instanceof Lazy) return fastResolve(value.produce());
  // Property reads on primitives go through their wrappers, as in the resolvers.
  const v = value as { resolve?: unknown; constructor?: unknown; value?: unknown };
  if (typeof v.resolve === 'function') return fastResolve((v as { resolve: () => unknown }).resolve());
  if (v.constructor !== Object && (typeof v.value === 'number' || typeof v.value === 'string'))
    return fastResolve({ value: v.value });
  if (Array.isArray(value)) return value.map((x) => fastResolve(x));
  // resolve() compares with `==` here (NumberStringUnionResolver above with `===`), and so does this
  if (v.constructor == Object) {
    const result: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value as Record<string, unknown>)) result[k] = fastResolve(x);
    return result;
  }
  return value;
}
