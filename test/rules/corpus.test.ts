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
  runLint({ paths: [CORPUS], format: 'json', failOn: 'error', write: (s) => { out += s; }, writeError: () => undefined });
  return JSON.parse(out) as Report;
}

test('per-rule counts on the corpus', () => {
  const r = lintCorpus();
  const counts: Record<string, number> = {};
  for (const f of r.findings) counts[`${f.ruleId.split('-')[0]} ${f.severity}`] = (counts[`${f.ruleId.split('-')[0]} ${f.severity}`] ?? 0) + 1;
  expect(counts).toEqual({
    'RW102 error': 1, // the Deployment inside the nested List
    'RW103 warning': 3, // cascade + the two gRPC/exec services under CPU limits; never the defaults alone
    'RW104 warning': 1, // Redis readiness timeout 15 = period 15
    'RW105 error': 1, // cartservice: gRPC liveness = readiness
    'RW106 error': 1, // platform-server: HTTP liveness window = readiness window (the tcpSocket one is quiet)
    'RW107 warning': 2,
    'RW109 error': 1, // the readiness-cascade composition, once
    'RW201 warning': 3, // HTTP, gRPC and exec probes under CPU limits
    'RW301 warning': 2,
    'RW302 warning': 1, // the stepped canary; not blue-green, not the step-less canary
    'RW303 error': 1, // likewise
    'RW401 error': 1,
    'RW402 error': 1, // the defaulted ratio; the defaulted numerator is quiet
    'RW403 error': 2, // default(result, 0) < 10 (Datadog) and len(result) == 0 || ...
    'RW503 warning': 1,
    'RW601 warning': 3, // the 5-replica canary and both autoscaled services
  });
  expect(r.exitCode).toBe(1);
});

test('what the corpus scan read and skipped', () => {
  const r = lintCorpus();
  expect(r.scan).toEqual({ files: 15, excluded: 0, templates: 1, notManifests: 3, unreadable: 0 });
  expect(r.skippedKinds).toEqual({ Job: 1, CronJob: 1 });
  expect(r.objects).toBe(28);
  // No finding on a non-manifest file, and no RW000 at all.
  expect(r.findings.filter((f) => f.file.includes('helm-chart') || f.ruleId.startsWith('RW000'))).toEqual([]);
});
