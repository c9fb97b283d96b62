import * as YAML from 'yaml';
import { defaultsOnlyNumerator } from '../../src/rules/analysis-rules';
import { lintText } from '../../src/rules/run-lint';
import { find, synthService } from '../support/manifests';

/** RW402 tells a defaulted numerator (safe: no traffic is still no sample) from a defaulted ratio (a silent pass). */
const E = 'sum(rate(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"}[2m]))';
const A = 'sum(rate(envoy_cluster_upstream_rq_xx[2m]))';

function rw402(query: string): string[] {
  const t = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'error-ratio', namespace: 'checkout' },
    spec: {
      metrics: [
        {
          name: 'error-ratio',
          interval: '1m',
          successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01',
          failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01',
          provider: { prometheus: { address: 'http://p:9090', query } },
        },
      ],
    },
  };
  return lintText(YAML.stringify(t), 't.yaml')
    .findings.filter((f) => f.ruleId.startsWith('RW402'))
    .map((f) => f.message);
}

describe('RW402: `or vector(0)` on the numerator is safe, anywhere else it is a silent pass', () => {
  test.each([
    [`(${E} or on() vector(0)) / ${A}`],
    [`(${E} or vector(0)) / ${A}`],
    [`(${E} or on () vector(0.0)) / (${A})`],
    [`sum((${E} or on() vector(0)) / ${A})`],
  ])('safe: %s', (q) => expect(rw402(q)).toEqual([]));

  test.each([
    ['the whole ratio', `${E} / ${A} or vector(0)`],
    ['the whole ratio, parenthesised', `(${E} / ${A}) or on() vector(0)`],
    ['the denominator', `${E} / (${A} or vector(0))`],
    ['both', `(${E} or vector(0)) / (${A} or vector(0))`],
    ['a numerator over a constant', `(${E} or vector(0)) / 100`],
    ['a count', `sum(increase(envoy_cluster_upstream_rq_total[2m])) or vector(0)`],
    ['a defaulted ratio under an aggregation', `sum(${E} / ${A} or vector(0))`],
  ])('flagged: %s', (_t, q) =>
    expect(rw402(q).join('\n')).toMatch(
      /the query contains `or (on\(\) )?vector\(0\)` outside the numerator of a ratio/,
    ),
  );

  test('the queries rollwise emits pass RW402', () => {
    const objs = synthService();
    for (const name of ['checkout-api-canary-background', 'checkout-api-canary-gate']) {
      for (const m of find(objs, 'AnalysisTemplate', name).spec.metrics as {
        provider: { prometheus: { query: string } };
      }[]) {
        const q = m.provider.prometheus.query;
        const at = q.indexOf(' or ');
        if (at >= 0) expect(defaultsOnlyNumerator(q, at + 1, 'or on() vector(0)'.length)).toBe(true);
        expect(rw402(q)).toEqual([]);
      }
    }
  });
});
