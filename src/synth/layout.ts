import * as path from 'path';
import { Chart } from 'cdk8s';
import { RollwiseInputError } from '../errors';

const declared = new WeakMap<Chart, string>();

/**
 * Declares where a chart's manifests go, relative to the output folder (e.g.
 * "prod/checkout-api.k8s.yaml"). Used by `SynthLayout.declared()`, the default layout; charts
 * without a declaration keep the file name `cdk8s synth` gives them.
 */
export function declareOutputPath(chart: Chart, relPath: string): void {
  const clean = checkRelPath(`output path of chart ${chart.node.path}`, relPath, 'declareOutputPath(chart, path)');
  const prev = declared.get(chart);
  if (prev !== undefined && prev !== clean) {
    throw new RollwiseInputError(
      'declareOutputPath(chart, path)',
      clean,
      `chart ${chart.node.path} already has the output path ${prev}, and a chart is written to one file.`,
      `declare one path per chart: keep ${prev}, or make another chart for ${clean}.`,
    );
  }
  declared.set(chart, clean);
}

/** The output path declared for a chart, if any. */
export function declaredOutputPath(chart: Chart): string | undefined {
  return declared.get(chart);
}

/**
 * A relative path with "/" separators that stays inside the output folder and is not one of the
 * names the output folder reserves (its marker, `.git`); throws a RollwiseInputError naming
 * `input` (the layout, the declared path, the file a construct adds) otherwise.
 */
export function checkRelPath(what: string, relPath: string, input = 'layout'): string {
  if (typeof relPath !== 'string') {
    throw new RollwiseInputError(
      input,
      relPath === undefined ? 'undefined' : typeof relPath === 'bigint' ? `${String(relPath)}n` : relPath,
      `gave ${what} as ${relPath === null ? 'null' : `a ${typeof relPath}`}, not a file path.`,
      'return a relative file path inside the output folder (e.g. "prod/checkout-api.k8s.yaml"), or undefined for ' +
        'the default name.',
    );
  }
  const norm = path.posix.normalize(relPath.replace(/\\/g, '/'));
  if (relPath === '' || path.posix.isAbsolute(norm) || norm === '.' || norm.startsWith('../') || norm === '..') {
    throw new RollwiseInputError(
      input,
      relPath,
      `${what} "${relPath}" must be a relative file path inside the output folder (e.g. ` +
        '"prod/checkout-api.k8s.yaml"): synth writes only into its output folder, which it replaces as a whole.',
      'give a path inside the output folder, without a leading "/" or "..", e.g. ' +
        `"prod/${path.posix.basename(norm) || 'checkout-api.k8s.yaml'}".`,
    );
  }
  const first = norm.split('/')[0];
  if (norm === '.rollwise-output' || first === '.git') {
    throw new RollwiseInputError(
      input,
      relPath,
      `${what} "${relPath}" ` +
        `is ${
          first === '.git'
            ? "inside .git, Git's own folder"
            : 'the name of the marker synth writes into its ' + 'output folder'
        }.`,
      'choose another file name.',
    );
  }
  return norm;
}

/**
 * Where each chart's YAML file goes (for the default one-file-per-chart output). Every layout
 * first computes the name `cdk8s synth` would give the chart (`<chart>.k8s.yaml`, or
 * `0000-<chart>.k8s.yaml` when charts depend on each other) so the numbering stays identical.
 */
export class SynthLayout {
  /** Exactly the files `App.synth()` writes: one file per chart, flat in the output folder. */
  public static flat(): SynthLayout {
    return new SynthLayout(() => undefined);
  }

  /**
   * Charts with a declared output path (`declareOutputPath`, environment charts) go there; all
   * other charts as in `flat()`. The default: an app without declarations is synthesized exactly
   * as `App.synth()` would.
   */
  public static declared(): SynthLayout {
    return new SynthLayout((chart) => declared.get(chart));
  }

  /**
   * Your own mapping. `fileOf` receives the chart and the flat file name (`<chart>.k8s.yaml`)
   * and returns a path relative to the output folder, or undefined for the flat name.
   */
  public static custom(fileOf: (chart: Chart, flatName: string) => string | undefined): SynthLayout {
    if (typeof fileOf !== 'function') {
      throw new RollwiseInputError(
        'SynthLayout.custom(fileOf)',
        fileOf === undefined
          ? 'undefined'
          : typeof fileOf === 'object'
            ? (JSON.stringify(fileOf) ?? String(fileOf))
            : String(fileOf),
        'must be a function from a chart (and its flat file name) to its file path.',
        'pass e.g. SynthLayout.custom((chart, flat) => `prod/${flat}`).',
      );
    }
    return new SynthLayout(fileOf);
  }

  private constructor(private readonly fileOf: (chart: Chart, flatName: string) => string | undefined) {}

  /** The file of a chart, relative to the output folder. */
  public fileFor(chart: Chart, flatName: string): string {
    const p = this.fileOf(chart, flatName);
    return p === undefined ? flatName : checkRelPath(`the file of chart ${chart.node.path}`, p, 'layout');
  }
}
