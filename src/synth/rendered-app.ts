import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';

type Json = Record<string, unknown>;

/**
 * One render: the synth-time checks run on exactly the objects that are written, in the same
 * pass. `planApp` renders every chart once (each ApiObject's toJson(), or the chart's own
 * toJson() where a chart class overrides it), hands those objects to every check registered
 * here, and serializes the same objects. Nothing is cached across passes: a second synth() after
 * a patch renders and checks again.
 *
 * Under a plain cdk8s `App.synth()` (no rollwise renderer) the checks still run from the
 * constructs' cdk8s validations, on a render of their own (`ownRender`); only rollwise's renderer
 * guarantees that the checked objects are the written ones.
 */
export interface RenderedApp {
  /** Every object written, in output order, each with the chart it is written in. */
  readonly objects: readonly { readonly chart: Chart; readonly json: Json }[];
  /**
   * The written objects of the ApiObjects under `scope` (by identity, or, for a chart whose own
   * toJson() replaced the render, by apiVersion, kind, namespace and name; an object the override
   * dropped is missing here, one it added belongs to no construct).
   */
  objectsOf(scope: Construct): { readonly apiObject: ApiObject; readonly json: Json }[];
  /** The output file of a chart ("prod/checkout-api.k8s.yaml"), with one file per chart; else undefined. */
  fileOf(chart: Chart): string | undefined;
  /** Every chart's output file (one file per chart). */
  readonly files: readonly string[];
}
