/**
 * The catalogue of releases a rehearsal replays, each with what it must do. The behaviour of a
 * release is what the canary's pods and the proxies in front of them do; how the rollout reacts is
 * for the rehearsal to find out.
 */

/** What a release must end as for the rehearsal to pass. */
export type Expectation =
  /** Reaches full promotion. */
  | 'promoted'
  /** Aborted while the canary is at its first weight. */
  | 'aborted-at-first-weight'
  /** Aborted (at any weight, by analysis Failed or Error). */
  | 'aborted'
  /** Paused (Inconclusive) at the first weight, waiting for a human. */
  | 'paused-at-first-weight'
  /** Never promoted: aborted or paused, at any weight. */
  | 'not-promoted'
  /** Never aborted: promoted, or paused for a human. */
  | 'not-aborted';

export type TrafficLevel =
  /** The traffic a release sees at its usual time: rollwise.dev/release-rps, else the peak. */
  | 'release'
  /** The service's quiet hours: `lowTrafficFraction` of the peak (or --low-rps). */
  | 'low'
  /** Nobody calls the service. */
  | 'none';

export interface Release {
  readonly id: string;
  readonly title: string;
  /** Fraction of the canary's answers that are 5xx. */
  readonly canaryErrorRatio: number;
  /** Fraction of the stable pods' answers that are 5xx. */
  readonly stableErrorRatio: number;
  readonly traffic: TrafficLevel;
  /**
   * Seconds from container start until the process answers its start-up (or readiness) probe.
   * `'budget'` means 90 % of the start-up budget (startupProbe period x failureThreshold).
   */
  readonly startSeconds: number | 'budget';
  /** The canary's pods fail readiness after being Ready this long, then recover, again and again. */
  readonly flapAfterReadySeconds?: number;
  /**
   * Each canary pod's readiness fails once, this long after it became Ready; it leaves Ready after its failure window
   * and returns after its success window.
   */
  readonly failReadinessOnceAfterReadySeconds?: number;
  /**
   * A burst: the canary answers `errorRatio` 5xx for `seconds`, starting `afterFirstTrafficSeconds` after the canary
   * first takes traffic.
   */
  readonly burst?: { readonly afterFirstTrafficSeconds: number; readonly seconds: number; readonly errorRatio: number };
  /** The analysis cannot reach Prometheus (connection refused). */
  readonly prometheusUnreachable?: boolean;
  readonly expect: Expectation;
  /** Why that expectation: printed beside a release that misses it. */
  readonly because: string;
}

/** A healthy pod starts (process answers) after this many seconds. */
export const HEALTHY_START_SECONDS = 8;
/** Quiet-hours traffic as a fraction of the peak when no --low-rps is given. */
export const LOW_TRAFFIC_FRACTION = 0.05;

const base = {
  canaryErrorRatio: 0,
  stableErrorRatio: 0,
  traffic: 'release' as TrafficLevel,
  startSeconds: HEALTHY_START_SECONDS as number | 'budget',
};

export const RELEASES: readonly Release[] = [
  {
    ...base,
    id: 'healthy',
    title: 'healthy release (no 5xx at all)',
    expect: 'promoted',
    because: 'a release that never answers 5xx and whose pods stay Ready must reach 100 % without a human.',
  },
  {
    ...base,
    id: 'canary-5xx-0.5',
    title: 'canary answers 0.5 % 5xx',
    canaryErrorRatio: 0.005,
    expect: 'promoted',
    because:
      'below a 1 % error ceiling: the ordinary background error rate of a service must not block its ' + 'releases.',
  },
  {
    ...base,
    id: 'canary-5xx-2',
    title: 'canary answers 2 % 5xx',
    canaryErrorRatio: 0.02,
    expect: 'aborted-at-first-weight',
    because: 'twice a 1 % ceiling, sustained: the bad release must cost only the first ' + "weight's share of traffic.",
  },
  {
    ...base,
    id: 'canary-blip',
    title: 'canary answers only 5xx for one minute, then none',
    burst: { afterFirstTrafficSeconds: 150, seconds: 60, errorRatio: 1 },
    expect: 'promoted',
    because:
      'one minute of errors with every canary pod staying Ready is a blip (a cold cache at a weight change): ' +
      'the limits count the measurements one burst can fail and must not abort on them; a pod that leaves Ready, by ' +
      "a restart too, is the departures metric's and aborts (docs/mechanisms.md#one-burst-and-the-limits).",
  },
  {
    ...base,
    id: 'canary-5xx-10',
    title: 'canary answers 10 % 5xx',
    canaryErrorRatio: 0.1,
    expect: 'aborted-at-first-weight',
    because: 'a clearly bad release must be stopped at the first weight.',
  },
  {
    ...base,
    id: 'canary-5xx-100',
    title: 'canary answers only 5xx',
    canaryErrorRatio: 1,
    expect: 'aborted-at-first-weight',
    because: 'a release that fails every request must be stopped at the first weight.',
  },
  {
    ...base,
    id: 'stable-5xx',
    title: 'stable answers 2 % 5xx, canary healthy',
    stableErrorRatio: 0.02,
    expect: 'not-promoted',
    because:
      'while users see errors the rollout must not progress on its own (a pause or an abort ' +
      'both put a human in charge).',
  },
  {
    ...base,
    id: 'canary-flaps',
    title: 'canary pods flap readiness (Ready 60 s, then out)',
    flapAfterReadySeconds: 60,
    expect: 'aborted-at-first-weight',
    because: 'a canary whose pods leave the endpoints again and again is broken even when its answers are fine.',
  },
  {
    ...base,
    id: 'canary-leaves-ready-once',
    title: 'each canary pod leaves Ready once, failing from its first probe ' + 'after Ready (before it is available)',
    failReadinessOnceAfterReadySeconds: 0,
    expect: 'aborted-at-first-weight',
    because:
      'a pod that passed readiness and left it is the flapping that later takes the fleet, also when it ' +
      'left before it was first available and so before the run started: it returns, is counted available ' +
      'minReadySeconds later, and the first departure count must still see it ' +
      '(docs/mechanisms.md#one-burst-and-the-limits).',
  },
  {
    ...base,
    id: 'slow-start',
    title: 'slow start (90 % of the start-up budget)',
    startSeconds: 'budget',
    expect: 'promoted',
    because: 'a start within the declared start-up budget is healthy and must promote.',
  },
  {
    ...base,
    id: 'no-traffic',
    title: 'no traffic at all',
    traffic: 'none',
    expect: 'paused-at-first-weight',
    because: 'without requests nothing is known about the release: pause for a human, never promote blind.',
  },
  {
    ...base,
    id: 'low-traffic',
    title: "healthy release at the service's quiet-hours traffic",
    traffic: 'low',
    expect: 'not-aborted',
    because: 'too little traffic may pause for a human, but must never abort a healthy release.',
  },
  {
    ...base,
    id: 'prometheus-unreachable',
    title: 'Prometheus unreachable (connection refused)',
    prometheusUnreachable: true,
    expect: 'not-promoted',
    because: 'an analysis that cannot measure must never promote.',
  },
];

/**
 * The releases synth rehearses for every canary service: a healthy one must promote, a clearly bad
 * one must abort at the first weight. canary-leaves-ready-once is left to `rollwise rehearse`: with
 * a return window shorter than a scrape (failureThreshold 2 gives 20 s) the pod's outage can fall
 * between two kube-state-metrics samples, which no departure window can see, so gating synth on it
 * would refuse such a service with a fix that cannot help.
 */
export const SYNTH_RELEASES: readonly string[] = ['healthy', 'canary-5xx-10'];

export function releaseById(id: string): Release {
  const r = RELEASES.find((x) => x.id === id);
  if (!r) throw new Error(`no release ${id} in the catalogue (${RELEASES.map((x) => x.id).join(', ')})`);
  return r;
}
