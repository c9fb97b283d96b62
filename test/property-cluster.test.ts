import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { EnvValue, Volume } from '../src/decisions/containers';
import { checkoutApiProps } from '../src/example';
import { RollwiseInputError } from '../src/errors';
import { listFiles } from '../src/synth/diff';
import { synthesize } from '../src/synth/synth';
import { SchemaValidator } from '../src/schemas/validator';

/**
 * Over every input group: a generated value is either refused with a RollwiseInputError that names
 * the input, or the synth succeeds, which means its output passed the schema, CEL and built-in
 * checks of the one render, and is then also valid for ajv on the written files (a second,
 * independent schema validator). Values are drawn from near the edges of each grammar: characters
 * the API server refuses, lengths around the limits, numbers of the wrong kind.
 */
const ajv = SchemaValidator.load();
const nasty = fc.constantFrom(
  '',
  ' ',
  '/',
  '//',
  '..',
  '#',
  '%2F',
  '%2f',
  'ü',
  '\u200b',
  'A',
  '_',
  '-',
  '.',
  ':',
  '@',
  '*',
  '?',
  '\n',
  'a'.repeat(64),
  '0',
  '9',
);
const word = fc
  .array(fc.oneof(fc.constantFrom('a', 'b', 'x', '1', '-', '.', '/'), nasty), { minLength: 0, maxLength: 6 })
  .map((p) => p.join(''));
const num = fc.oneof(
  fc.integer({ min: -3, max: 70000 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(NaN, Infinity, 2.5, 0, 1, 2, 1024, 65535, 65536),
);

type Group = [name: string, arb: fc.Arbitrary<Partial<HttpServiceProps>>];
const sa = { serviceAccount: { name: 'checkout-api' } };
const groups: Group[] = [
  [
    'image',
    fc
      .tuple(word, word, fc.constantFrom(':1.0', ':latest', '@sha256:' + 'a'.repeat(64), ':', ''))
      .map(([a, b, t]) => ({ image: `ghcr.io/${a}/${b}${t}` })),
  ],
  ['route.pathPrefix', word.map((w) => ({ route: { hostnames: ['checkout.example.com'], pathPrefix: `/${w}` } }))],
  [
    'route.hostnames',
    fc
      .array(word, { minLength: 1, maxLength: 3 })
      .map((h) => ({ route: { hostnames: h.map((x) => `${x}.example.com`) } })),
  ],
  ['pod.labels', fc.dictionary(word, word, { maxKeys: 3 }).map((labels) => ({ pod: { ...sa, labels } }))],
  [
    'pod.annotations',
    fc.dictionary(word, word, { maxKeys: 3 }).map((annotations) => ({ pod: { ...sa, annotations } })),
  ],
  ['metadata.labels', fc.dictionary(word, word, { maxKeys: 3 }).map((labels) => ({ metadata: { labels } }))],
  [
    'container.env',
    fc.dictionary(word, word, { maxKeys: 3 }).map((env) => ({
      container: {
        runAs: { user: 10001 },
        env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, EnvValue.fromValue(v)])),
      },
    })),
  ],
  [
    'pod.tolerations',
    fc
      .array(
        fc.record(
          {
            key: word,
            operator: fc.constantFrom('Equal', 'Exists', 'In', ''),
            value: word,
            effect: fc.constantFrom('NoSchedule', 'NoExecute', 'Bogus', ''),
            tolerationSeconds: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      )
      .map((tolerations) => ({ pod: { ...sa, tolerations } }) as unknown as Partial<HttpServiceProps>),
  ],
  [
    'pod.affinity',
    fc
      .record({
        key: word,
        operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Equals'),
        values: fc.array(word, { maxLength: 2 }),
      })
      .map(
        (r) =>
          ({
            pod: {
              ...sa,
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [r] }] },
                },
              },
            },
          }) as unknown as Partial<HttpServiceProps>,
      ),
  ],
  [
    'container.mounts',
    fc.array(word, { minLength: 1, maxLength: 3 }).map((paths) => ({
      pod: { ...sa, volumes: [Volume.fromSecret('tls', 'orders-tls')] },
      container: { runAs: { user: 10001 }, mounts: paths.map((p) => ({ volume: 'tls', path: `/${p}` })) },
    })),
  ],
  [
    'resources',
    fc
      .record({
        cpu: fc.oneof(word, fc.constantFrom('250m', '0.5', '1', '1.5m')),
        memory: fc.oneof(word, fc.constantFrom('512Mi', '1Gi', '64M')),
      })
      .map((resources) => ({ resources })),
  ],
  ['replicas and port', fc.record({ replicas: num, port: num }).map((x) => x as unknown as Partial<HttpServiceProps>)],
  ['namespace', word.map((namespace) => ({ namespace }))],
  [
    'health paths',
    fc.record({ r: word, l: word }).map(({ r, l }) => ({ health: { readinessPath: `/${r}`, livenessPath: `/${l}` } })),
  ],
];

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-prop-cluster-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe.each(groups)('%s: refused by name, or output the cluster accepts', (group, arb) => {
  test('property', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(arb, (props) => {
        const out = path.join(root, 'dist');
        fs.rmSync(out, { recursive: true, force: true });
        try {
          synthesize(
            (outdir) => {
              const app = new App({ outdir });
              new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', {
                ...checkoutApiProps(),
                ...props,
              });
              return app;
            },
            { outdir: out, progress: () => undefined },
          );
        } catch (e) {
          refused++;
          // an input error naming the input of this group (never a TypeError, never only the cluster's refusal)
          expect(e).toBeInstanceOf(RollwiseInputError);
          const top = group.split(/[ .]/)[0];
          expect((e as RollwiseInputError).input).toMatch(
            new RegExp(
              `${top}|${group
                .split(' and ')
                .map((g) => g.split('.')[0])
                .join('|')}`,
            ),
          );
          expect(fs.existsSync(out)).toBe(false);
          return;
        }
        accepted++;
        const problems: string[] = [];
        for (const f of listFiles(out).filter((x) => x.endsWith('.yaml'))) {
          for (const d of YAML.parseAllDocuments(fs.readFileSync(path.join(out, f), 'utf8'), { version: '1.1' })) {
            const o = d.toJS() as { kind?: string } | null;
            if (o) problems.push(...ajv.validate(o).map((m) => `${f} ${o.kind} ${m}`));
          }
        }
        expect(problems).toEqual([]);
      }),
      { numRuns: Number(process.env.ROLLWISE_PROPERTY_RUNS ?? 25), seed: 22 },
    );
    expect(accepted + refused).toBeGreaterThan(0);
  });
});
