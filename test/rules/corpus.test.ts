import * as path from 'path';
import { runLint } from '../../src/rules';

/**
 * The hand-written corpus (test/fixtures/corpus, each file names the public pattern it stands for):
 * a precision or recall change shows up here as a changed count, visible in review.
 */
const CORPUS = path.join(__dirname, '..', 'fixtures', 'corpus');

interface Report {
  exitCode: number;
  objects: number;
  scan: { files: number; templates: number; notManifests: number; excluded: number; unreadable: number };
  skippedKinds: Record<string, number>;
  findings: { ruleId: string; severity: string; file: string; object: string }[];
}

function lintCorpus(): Report {
  let out = '';
  runLint({
    paths: [CORPUS],
    format: 'json',
    failOn: 'error',
    write: (s) => {
      out += s;
    },
    writeError: () => undefined,
  });
  return JSON.parse(out) as Report;
}

test('per-rule counts on the corpus', () => {
  const r = lintCorpus();
  const counts: Record<string, number> = {};
  for (const f of r.findings)
    counts[`${f.ruleId.split('-')[0]} ${f.severity}`] = (counts[`${f.ruleId.split('-')[0]} ${f.severity}`] ?? 0) + 1;
  expect(counts).toEqual({
    // Severities follow docs/rules.md "Severity": errors only where the consuming system refuses the
    // object or the composition causes the outage (issue 21).
    'RW102 warning': 1, // the Deployment inside the nested List
    // RW103: the three asymmetric probes under CPU limits are part of RW201's findings, not a second one.
    // RW104: Redis readiness timeout 15 = period 15 is quiet (only a timeout above the period is reported).
    'RW105 warning': 1, // cartservice: gRPC liveness = readiness
    // RW106: platform-server's HTTP liveness window equals readiness (defaults on two endpoints): quiet.
    // RW107: the corpus' liveness delays are under a minute (judged noise on the tuning set).
    // The readiness-cascade composition, once: a warning, since nothing shows the corpus' files are
    // applied as written (no kustomization, Argo CD Application or README applies them; applied-gate.ts).
    'RW109 warning': 1,
    'RW110 info': 1, // the blue-green Rollout without a readiness probe behind its active Service: autoPromotionEnabled false, a person promotes
    // HTTP, gRPC and exec probes under CPU limits: info, since no Service in the corpus routes to
    // these pods (a warning needs a throttled readiness probe on pods a Service routes to; held-out set 2).
    'RW201 info': 3,
    // RW301: info, and only for workloads a Service routes to: none here (held-out sets 1 and 2 judged it noise).

    // RW302: the stepped canary waits for a person (pause: {}), who sees it stuck; RW302 is for canaries an analysis runs.
    'RW304 info': 1, // the stepped canary: gated by pause: {}, a person promotes it (RW303 no longer)
    'RW401 warning': 1,
    'RW402 warning': 1, // the defaulted ratio; the defaulted numerator is quiet
    'RW403 warning': 2, // default(result, 0) < 10 (Datadog) and len(result) == 0 || ...
    // RW503: the Gateway-wide policy sets only requestTimeout (the route timeout), no upstream idle
    // timeout: quiet (a Gateway-wide requestTimeout alone was judged wrong on held-out set 9).
    'RW601 warning': 2, // the 5-replica canary and the HPA-scaled search service; not the KEDA queue worker (no port, no Service)
  });
  // No error, so `--fail-on error` passes (the RW109 warning above would be an error if applied as written).
  expect(r.exitCode).toBe(0);
});

test('what the corpus scan read and skipped', () => {
  const r = lintCorpus();
  expect(r.scan).toEqual({ files: 15, excluded: 0, templates: 1, notManifests: 3, unreadable: 0 });
  expect(r.skippedKinds).toEqual({ Job: 1, CronJob: 1 });
  expect(r.objects).toBe(28);
  // No finding on a non-manifest file, and no RW000 at all.
  expect(r.findings.filter((f) => f.file.includes('helm-chart') || f.ruleId.startsWith('RW000'))).toEqual([]);
});
