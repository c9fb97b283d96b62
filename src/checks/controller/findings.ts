/**
 * What the controller checks share: the check keys, a finding, the lookup of the other objects of
 * the run, and the readers of untyped JSON (a Go pointer field is `set` unless absent or null).
 * The checks themselves are one file per upstream area, listed in ../controller-spec.ts.
 */
import { LabelSelector } from '../go-values';

export type Json = Record<string, unknown>;

/** The checks, by key; `src/rules/controller-rules.ts` gives each a stable rule id. */
export type ControllerCheck =
  | 'negativeField'
  | 'selectorInvalid'
  | 'selectorTemplateMismatch'
  | 'templateNotForReplicaSet'
  | 'workloadRefWithTemplate'
  | 'workloadRefUnresolved'
  | 'progressDeadline'
  | 'strategyMissing'
  | 'strategyBoth'
  | 'surgeUnavailableZero'
  | 'sameService'
  | 'pingPong'
  | 'routingWithoutServices'
  | 'scaleDownDelayWithoutRouting'
  | 'dynamicStableScaleWithoutRouting'
  | 'dynamicStableScaleWithDelay'
  | 'maxTrafficWeightUnsupported'
  | 'stepSeveralKinds'
  | 'stepNoKind'
  | 'setWeightRange'
  | 'pauseDuration'
  | 'setCanaryScaleWithoutRouting'
  | 'headerRouteUnsupported'
  | 'routeMatchInvalid'
  | 'mirrorRouteWithoutIstio'
  | 'managedRoutesMissing'
  | 'routeNotManaged'
  | 'experimentWeightUnsupported'
  | 'analysisArgFieldRef'
  | 'antiAffinity'
  | 'routerConfigInvalid'
  | 'serviceNotFound'
  | 'serviceSelectorMismatch'
  | 'serviceManagedByOther'
  | 'templateNotFound'
  | 'analysisArgsNotSupplied'
  | 'inlineAnalysisIndefinite'
  | 'inlineUnresolvedArg'
  | 'templatesMergeInvalid'
  | 'argValueAndValueFrom'
  | 'noMetrics'
  | 'duplicateMetric'
  | 'negativeLimit'
  | 'limitsBothDisabled'
  | 'countBelowLimits'
  | 'countBelowInconclusive'
  | 'intervalRequired'
  | 'durationInvalid'
  | 'providerCount'
  | 'dryRunRule'
  | 'unresolvedArg'
  | 'rwPluginWithoutServices'
  | 'rwPluginRouteNotFound'
  | 'rwPluginBackendRefMissing'
  | 'rwPluginRuleWithoutBoth'
  | 'rwStepSeveralActions'
  | 'rwStepUnknownField'
  | 'rwStartingStepAfterSteps';

export interface ControllerFinding {
  readonly check: ControllerCheck;
  /** Field path in the checked object (`spec.strategy.canary.steps[2].setWeight`). */
  readonly path: string;
  /** The value, why the controller (or the plugin) refuses it, and how to fix it. */
  readonly message: string;
  readonly values: Readonly<Record<string, string | number | boolean>>;
}

/** The other objects of the run, for the checks that follow a reference. */
export interface ObjectLookup {
  /** An object by kind, namespace (undefined for cluster-scoped or unset) and name. */
  get(kind: string, namespace: string | undefined, name: string): Json | undefined;
  /** The objects of a kind in a namespace (and those without one). */
  list(kind: string, namespace: string | undefined): readonly Json[];
}

export function rec(x: unknown): Json | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : undefined;
}
export function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}
export function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}
/** A Go pointer field: set unless absent or null. */
export function set(x: unknown): boolean {
  return x !== undefined && x !== null;
}
export function show(v: unknown): string {
  return JSON.stringify(v) ?? 'undefined';
}
export function readSelector(x: unknown): LabelSelector {
  const r = rec(x) ?? {};
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(r.matchLabels) ?? {})) labels[k] = v as string;
  return {
    matchLabels: labels,
    matchExpressions: arr(r.matchExpressions).map((e) => ({
      key: str(rec(e)?.key),
      operator: str(rec(e)?.operator),
      values: arr(rec(e)?.values).map(String),
    })),
  };
}

export class Findings {
  public readonly list: ControllerFinding[] = [];
  public add(
    check: ControllerCheck,
    path: string,
    message: string,
    values: Record<string, string | number | boolean> = {},
  ): void {
    this.list.push({ check, path, message, values });
  }
}
