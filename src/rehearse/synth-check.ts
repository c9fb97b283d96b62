/**
 * Synth rehearses every canary service with the same model as `rollwise rehearse`, on the
 * in-process PromQL evaluator (synth must not need a Prometheus binary; the evaluator is proven equal
 * to Prometheus 2.42 on the rehearsal data by test/rehearse/promql-differential.test.ts), and refuses
 * a service whose healthy release would not promote or whose 10 % error release would not abort at
 * the first weight. The message is the rehearsal's own sentence.
 */
import { readRolloutObjects, RehearseInputError, type RolloutModel } from './manifest';
import { rehearsalKey } from './memo';
import { PromqlUnsupported } from './promql';
import { firstWeight, humanAtFirstWeight, rehearseInProcess } from './rehearse';
import { SYNTH_RELEASES } from './releases';

export interface Refusal {
  /** The input to change (capacity.peakRequestsPerSecond when the traffic cannot fill the analysis). */
  readonly input: string;
  readonly value: string;
  /** The rehearsal's sentence, the expectation and why. */
  readonly why: string;
  readonly fix: string;
}

export interface SynthRehearsal {
  /** One per release that would not behave as expected. */
  readonly refusals: Refusal[];
  /** Why a rehearsal could not run (no traffic figure, a query outside the evaluator's subset). */
  readonly warnings: string[];
}

const FIX: Record<string, string> = {
  healthy:
    'the analysis must pass a canary that answers no 5xx at all (Envoy then has no class "5" series) and ' +
    'whose new pods are not Ready while they start; see the timeline with `rollwise rehearse <manifest>`.',
  'canary-5xx-10':
    'the analysis must fail a canary answering 10 % 5xx before the rollout leaves its first weight; ' +
    'see the timeline with `rollwise rehearse <manifest>`.',
};
const LOW_TRAFFIC_FIX =
  'declare the traffic the canary really gets, or give the canary more of it: a higher first ' +
  'weight, a longer measurement window and pause, or a first step that waits for a human ' +
  '(CanaryStep.pauseUntilPromoted()) with a reason; `rollwise rehearse <manifest>` shows the timeline.';

let synthRehearsal = true;

/**
 * Turns the synth-time rehearsal off (false) or on again, for the synth benchmark only
 * (bench/synth.ts measures synth with and without it, side by side). Not exported by the package.
 */
export function setSynthRehearsalForBench(on: boolean): void {
  synthRehearsal = on;
}

const counts = { run: 0, shared: 0 };

/** Rehearsals synth ran in this process, and canaries that shared one already run (for the benchmark). */
export function synthRehearsalCounts(): { readonly run: number; readonly shared: number } {
  return { ...counts };
}

/** Whether synth rehearses canaries (always, outside the benchmark). */
export function synthRehearsalEnabled(): boolean {
  return synthRehearsal;
}

/**
 * Rehearsals already run, by their memo key (memo.ts): services whose rehearsals cannot differ
 * share one (an estate's services made from one template with the same figures). Pure results of
 * their key, so keeping them across synth passes changes nothing; bounded.
 */
const MEMO = new Map<string, SynthRehearsal>();
const MEMO_MAX = 4096;

/** Rehearse the synthesized objects of one service (its Rollout, AnalysisTemplates and HTTPRoute). */
export function rehearseForSynth(
  objects: readonly unknown[],
  opts: { readonly releaseRps?: number } = {},
): SynthRehearsal {
  const refusals: Refusal[] = [];
  const warnings: string[] = [];
  let models;
  try {
    models = readRolloutObjects(objects, { releaseRps: opts.releaseRps }, 'the synthesized service');
  } catch (e) {
    if (e instanceof RehearseInputError) return { refusals, warnings: [`not rehearsed: ${e.message}`] };
    throw e;
  }
  for (const m of models) {
    if (m.peakRps === undefined && m.releaseRps === undefined) {
      warnings.push(
        'canary not rehearsed: no capacity figures (capacity.peakRequestsPerSecond), so the traffic a release sees ' +
          'is unknown. Declare capacity to have synth check that the analysis promotes a healthy release and stops a ' +
          'bad one.',
      );
      continue;
    }
    const key = rehearsalKey(m, SYNTH_RELEASES);
    let r = key === undefined ? undefined : MEMO.get(key);
    if (r) counts.shared++;
    else {
      r = rehearseModel(m);
      if (key !== undefined) {
        if (MEMO.size >= MEMO_MAX) MEMO.clear();
        MEMO.set(key, r);
      }
    }
    refusals.push(...r.refusals.map((x) => ({ ...x })));
    warnings.push(...r.warnings);
  }
  return { refusals, warnings };
}

/** The synth rehearsal of one canary Rollout: its refusals and warnings. */
function rehearseModel(m: RolloutModel): SynthRehearsal {
  const refusals: Refusal[] = [];
  let r;
  try {
    counts.run++;
    r = rehearseInProcess(m, { releases: SYNTH_RELEASES });
  } catch (e) {
    if (e instanceof PromqlUnsupported) {
      return {
        refusals,
        warnings: [
          `canary not rehearsed at synth: a query is outside the in-process evaluator's ` +
            `PromQL (${e.message}); run \`rollwise rehearse\` on the output, which uses a real Prometheus.`,
        ],
      };
    }
    throw e;
  }
  for (const x of r.results) {
    if (x.met) continue;
    const expected =
      x.release.expect !== 'aborted-at-first-weight'
        ? x.release.expect
        : humanAtFirstWeight(m)
          ? 'aborted before full promotion (a human decides at the first weight)'
          : `aborted at ${firstWeight(m)} %`;
    const rps = Math.round(x.world.rps * 100) / 100;
    // The traffic is the input at fault when the same release would behave at 100 x the traffic.
    const starved = rehearseInProcess(m, { releases: [x.release.id], releaseRps: x.world.rps * 100 }).ok;
    refusals.push({
      input: starved ? 'capacity.peakRequestsPerSecond' : 'delivery',
      value: starved ? String(rps) : 'Delivery.canary()',
      why:
        `the rehearsal of release "${x.release.id}" (${x.release.title}, ${rps} req/s, ${firstWeight(m)} % to the ` +
        `canary) says: ${x.sentence}; expected ${expected}: ${x.release.because}`,
      fix: starved ? LOW_TRAFFIC_FIX : (FIX[x.release.id] ?? 'see `rollwise rehearse <manifest>`.'),
    });
  }
  return { refusals, warnings: [] };
}
