/**
 * `rollwise rehearse <manifest(s)> [--json] [--svg out.svg] [--release id]...`: replay the release
 * catalogue through every canary Rollout in the manifests, each measurement on a real Prometheus.
 *   0  every release behaved as its expectation says
 *   1  at least one did not
 *   2  unusable input (named with its value, why and how to fix it), or no Prometheus to run
 */
import * as fs from 'fs';
import { readTextCapped } from '../read-limit';
import { readRollouts, RehearseInputError } from './manifest';
import { PrometheusUnavailable } from './prometheus';
import { rehearseOnPrometheus } from './rehearse';
import { formatRehearsal, rehearsalJson, renderRehearsalSvg } from './report';

export interface RunRehearseOptions {
  readonly files: string[];
  readonly json?: boolean;
  readonly svg?: string;
  readonly releases?: string[];
  readonly peakRps?: number;
  readonly releaseRps?: number;
  readonly lowRps?: number;
  readonly scrapeSeconds?: number;
  readonly write: (text: string) => void;
  readonly writeErr: (text: string) => void;
}

export async function runRehearse(o: RunRehearseOptions): Promise<number> {
  let models;
  try {
    const texts = o.files.map((file) => {
      if (!fs.existsSync(file))
        throw new RehearseInputError(
          'manifest',
          file,
          'does not exist.',
          'pass rendered manifest files (e.g. dist/prod/<service>.k8s.yaml).',
        );
      return { file, text: readTextCapped(file) };
    });
    models = readRollouts(texts, { peakRps: o.peakRps, releaseRps: o.releaseRps });
    for (const m of models) {
      if (m.peakRps === undefined && o.releaseRps === undefined) {
        throw new RehearseInputError(
          `Rollout ${m.namespace}/${m.name} metadata.annotations["rollwise.dev/peak-rps"]`,
          'missing',
          "the rehearsal needs the service's traffic to replay it.",
          'pass --peak-rps <req/s> (and --release-rps for the traffic at release time).',
        );
      }
    }
  } catch (e) {
    if (e instanceof RehearseInputError) {
      o.writeErr(`rollwise rehearse: unusable input\n  ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  let result;
  try {
    result = await rehearseOnPrometheus(models, {
      releases: o.releases,
      releaseRps: o.releaseRps,
      lowRps: o.lowRps,
      scrapeSeconds: o.scrapeSeconds,
    });
  } catch (e) {
    if (e instanceof PrometheusUnavailable || (e instanceof Error && /^unknown release/.test(e.message))) {
      o.writeErr(`rollwise rehearse: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (o.json) o.write(`${JSON.stringify(rehearsalJson(result), null, 2)}\n`);
  else o.write(formatRehearsal(result));
  if (o.svg) {
    // One file per Rollout: the given name for the first, -<namespace>-<name> before the extension for the others.
    for (const [i, r] of result.entries()) {
      const file = i === 0 ? o.svg : o.svg.replace(/(\.svg)?$/, `-${r.rollout.namespace}-${r.rollout.name}.svg`);
      fs.writeFileSync(file, renderRehearsalSvg(r));
      if (!o.json) o.write(`timeline written to ${file}\n`);
    }
  }
  return result.every((r) => r.ok) ? 0 : 1;
}
