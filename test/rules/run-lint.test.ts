import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import Ajv from 'ajv';
import * as YAML from 'yaml';
import { assertSafe, lintObjects, rulesMarkdown, runLint, runLintCli } from '../../src/rules';
import { c0, cleanDeployment, pdb, service } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const FIX = path.join(ROOT, 'test', 'fixtures', 'lint');

function run(paths: string[], extra: Partial<Parameters<typeof runLint>[0]> = {}): { code: number; out: string } {
  let out = '';
  const code = runLint({
    paths,
    format: 'text',
    failOn: 'error',
    write: (s) => {
      out += s;
    },
    ...extra,
  });
  return { code, out };
}

describe('rollwise lint on the throttled-drain incident (docs/mechanisms.md#readiness-control-loop)s and their fixes', () => {
  test('incidents: every hazard reported with rule id, file:line, values and fix', () => {
    const { code, out } = run([path.join(FIX, 'incidents')], { format: 'json', failOn: 'warning' });
    expect(code).toBe(1);
    const report = JSON.parse(out) as {
      exitCode: number;
      findings: { ruleId: string; file: string; line: number; object: string }[];
    };
    const got = report.findings.map((f) => `${path.basename(f.file)}:${f.line} ${f.ruleId.split('-')[0]} ${f.object}`);
    expect(got).toEqual([
      'canary.yaml:21 RW110 Rollout/checkout/checkout-api',
      'canary.yaml:25 RW303 Rollout/checkout/checkout-api',
      'canary.yaml:49 RW401 AnalysisTemplate/checkout/error-ratio',
      'canary.yaml:53 RW402 AnalysisTemplate/checkout/error-ratio',
      'checkout-probes.yaml:13 RW601 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:33 RW201 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:35 RW108 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:39 RW101 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:41 RW102 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:42 RW105 Deployment/checkout/checkout-api',
      'checkout-probes.yaml:49 RW107 Deployment/checkout/checkout-api',
      'keepalive-race.yaml:46 RW501 BackendTrafficPolicy/shop/public-timeouts',
      'keepalive-race.yaml:46 RW503 BackendTrafficPolicy/shop/public-timeouts',
      'keepalive-race.yaml:65 RW110 Deployment/billing/orders',
      'keepalive-race.yaml:92 RW502 HTTPRoute/billing/orders',
      'malformed.yaml:7 RW000 (document at line 7)',
      'malformed.yaml:29 RW102 Deployment/worker',
    ]);
    expect(report.exitCode).toBe(1);
  });

  test('text output: one line per finding, then why and fix', () => {
    const { out } = run([path.join(FIX, 'incidents', 'checkout-probes.yaml')]);
    const file = path.join(FIX, 'incidents', 'checkout-probes.yaml');
    expect(out).toContain(
      `${file}:41 warning RW102-readiness-failure-threshold-one Deployment/checkout/checkout-api spec.template.spec.containers[0].readinessProbe.failureThreshold: container "app": readiness failureThreshold 1: one missed probe (timeout 1 s) removes the pod for at least 10 s.\n    why: With failureThreshold 1`,
    );
    expect(out).toContain('    fix: Set readinessProbe.failureThreshold to 3 or more');
    expect(out).toContain('CPU limit 500m with request 250m, limit/request ratio 2');
    expect(out).toMatch(
      /2 object\(s\): 1 error\(s\), 5 warning\(s\), 1 info, 0 suppressed, 0 accepted override\(s\)\n$/,
    );
  });

  test('the fixed versions lint clean, even at --fail-on info', () => {
    const { code, out } = run([path.join(FIX, 'fixed')], { failOn: 'info' });
    expect(out).toMatch(
      /^\d+ file\(s\) read; kinds no rule checks: [^\n]+\n11 object\(s\): 0 error\(s\), 0 warning\(s\), 0 info, 0 suppressed, 0 accepted override\(s\)\n$/,
    );
    expect(code).toBe(0);
  });

  test('the committed example dist/ lints clean with every fact rule running', () => {
    let out = '';
    const code = runLint({
      paths: [path.join(ROOT, 'dist')],
      format: 'json',
      failOn: 'info',
      explainSkips: true,
      write: (s) => {
        out += s;
      },
    });
    const report = JSON.parse(out) as {
      findings: unknown[];
      skips: { ruleId: string; object: string }[];
      objects: number;
    };
    expect(report.findings).toEqual([]);
    expect(report.objects).toBeGreaterThanOrEqual(18);
    // both environments declare p99, dependency, peak and saturation (dev its own traffic with
    // Sizing.fixed(2, { peakRequestsPerSecond: 40 })): none of those rules is skipped.
    expect(report.skips.filter((s) => /RW10[18]|RW602/.test(s.ruleId)).map((s) => `${s.ruleId} ${s.object}`)).toEqual(
      [],
    );
    expect(code).toBe(0);
  });

  test('--fail-on decides the exit code; suppressed findings do not count', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-lint-'));
    const d = cleanDeployment();
    c0(d).resources.limits.cpu = '500m'; // RW201, a warning
    fs.writeFileSync(path.join(dir, 'app.yml'), [d, pdb(), service()].map((o) => YAML.stringify(o)).join('---\n'));
    expect(run([dir], { failOn: 'error' }).code).toBe(0);
    expect(run([dir], { failOn: 'warning' }).code).toBe(1);
    expect(run([dir], { failOn: 'none' }).code).toBe(0);
    d.metadata.annotations['rollwise.dev/suppress'] =
      'RW201: the limit is 4x the request and peak use is 1.2x, measured';
    fs.writeFileSync(path.join(dir, 'app.yml'), [d, pdb(), service()].map((o) => YAML.stringify(o)).join('---\n'));
    const suppressed = run([dir], { failOn: 'warning' });
    expect(suppressed.code).toBe(0);
    expect(suppressed.out).toContain(
      'warning (suppressed: the limit is 4x the request and peak use is 1.2x, measured) RW201-cpu-limit-with-http-probes',
    );
  });

  test('exit 2 for unusable input: no paths, unreadable file, empty folder, nothing parseable, bad option', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-lint-'));
    expect(run([]).code).toBe(2);
    const missing = run([path.join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.out).toContain('cannot read');
    expect(run([dir]).code).toBe(2);
    fs.writeFileSync(path.join(dir, 'bad.yaml'), 'kind: [\n');
    const bad = run([path.join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/no Kubernetes object could be read from .*bad\.yaml: .*bad\.yaml:\d/);
    expect(run([path.join(FIX, 'fixed')], { failOn: 'fatal' as never }).code).toBe(2);
    let out = '';
    expect(
      runLintCli([path.join(FIX, 'fixed')], { p99: ['checkout-api'] }, (s) => {
        out += s;
      }),
    ).toBe(2);
    expect(out).toContain('--p99 checkout-api: expected <name>=<value>');
  });

  test('standard input (-) and CLI facts', () => {
    const d = cleanDeployment();
    delete d.metadata.annotations['rollwise.dev/readiness-p99-seconds'];
    const text = [d, pdb(), service()].map((o) => YAML.stringify(o)).join('---\n');
    let out = '';
    const code = runLint({
      paths: ['-'],
      format: 'text',
      failOn: 'error',
      explainSkips: true,
      readStdin: () => text,
      write: (s) => {
        out += s;
      },
    });
    expect(code).toBe(0);
    expect(out).toContain(
      '<stdin> RW101-readiness-timeout-below-p99 Deployment/checkout/checkout-api: Deployment/checkout/checkout-api declares no readinessP99Seconds',
    );
    out = '';
    const withFact = runLint({
      paths: ['-'],
      format: 'text',
      failOn: 'error',
      facts: { 'checkout-api': { readinessP99Seconds: '3.5' } },
      readStdin: () => text,
      write: (s) => {
        out += s;
      },
    });
    expect(withFact).toBe(1);
    expect(out).toContain(
      '<stdin>:41 warning RW101-readiness-timeout-below-p99 Deployment/checkout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds: container "app": readiness timeoutSeconds 3 is not above the health path\'s p99 under load 3.5 s (--p99 checkout-api)',
    );
  });
});

describe('SARIF 2.1.0', () => {
  // The schema ships in @microsoft/jest-sarif (lib/schemas/sarif-2.1.0-rtm.5.json, the 2.1.0 OASIS
  // standard schema, draft-04). SARIF_SCHEMA may point at a copy of the same file.
  const candidates = [
    process.env.SARIF_SCHEMA,
    path.join(ROOT, 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'),
  ].filter((x): x is string => !!x);
  const schemaFile = candidates.find((f) => fs.existsSync(f));

  function sarifOf(paths: string[]): { log: Record<string, unknown>; code: number } {
    let out = '';
    const code = runLint({
      paths,
      format: 'sarif',
      failOn: 'error',
      explainSkips: true,
      write: (s) => {
        out += s;
      },
    });
    return { log: JSON.parse(out) as Record<string, unknown>, code };
  }

  test('results name rule, level, file and line', () => {
    const { log, code } = sarifOf([path.join(FIX, 'incidents')]);
    expect(code).toBe(1);
    const run0 = (
      log.runs as {
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
        }[];
        tool: { driver: { rules: { id: string }[] } };
      }[]
    )[0];
    const r = run0.results.find(
      (x) =>
        x.ruleId === 'RW102-readiness-failure-threshold-one' &&
        x.locations[0].physicalLocation.artifactLocation.uri.endsWith('checkout-probes.yaml'),
    )!;
    expect(r.level).toBe('warning');
    expect(run0.results.find((x) => x.ruleId === 'RW108-readiness-calls-dependency')!.level).toBe('error');
    expect(r.locations[0].physicalLocation.region.startLine).toBe(41);
    expect(r.locations[0].physicalLocation.artifactLocation.uri).toBe(
      'test/fixtures/lint/incidents/checkout-probes.yaml'.replace(
        /^/,
        path.relative(process.cwd(), ROOT) ? `${path.relative(process.cwd(), ROOT)}/` : '',
      ),
    );
    expect(run0.tool.driver.rules.map((x) => x.id)).toContain('RW602-pdb-survivors-above-saturation');
  });

  (schemaFile ? test : test.skip)(
    `validates against the SARIF 2.1.0 JSON schema${schemaFile ? '' : ' (SKIPPED: @microsoft/jest-sarif is not installed, so lib/schemas/sarif-2.1.0-rtm.5.json is absent; set SARIF_SCHEMA to the file)'}`,
    () => {
      const schema = JSON.parse(fs.readFileSync(schemaFile!, 'utf8')) as Record<string, unknown>;
      // draft-04 -> what Ajv 8 reads: `id` becomes `$id`, `$schema` is dropped (no keyword differs otherwise);
      // unicodeRegExp off because the schema's `language` pattern is not valid with the u flag.
      delete schema.$schema;
      schema.$id = schema.id;
      delete schema.id;
      const validate = new Ajv({
        strict: false,
        allErrors: true,
        validateFormats: false,
        unicodeRegExp: false,
      }).compile(schema);
      for (const dir of ['incidents', 'fixed']) {
        const { log } = sarifOf([path.join(FIX, dir)]);
        const ok = validate(log);
        expect(validate.errors ?? []).toEqual([]);
        expect(ok).toBe(true);
      }
      // The validator can fail: a result without a message is rejected.
      const { log } = sarifOf([path.join(FIX, 'incidents')]);
      delete (log.runs as { results: Record<string, unknown>[] }[])[0].results[0].message;
      expect(validate(log)).toBe(false);
    },
  );
});

describe('synth time', () => {
  test('assertSafe throws naming rule, object, path, values and fix; accepts overrides', () => {
    const d = cleanDeployment();
    d.spec.replicas = 1; // with maxUnavailable 1: RW305, an error
    expect(() => assertSafe([d, pdb(), service()])).toThrow(
      'rollwise: 1 unsafe value(s) in the synthesized manifests (override the value with a reason, or fix it):\n' +
        '- RW305-single-replica-rolling-update-unavailable Deployment/checkout/checkout-api spec.strategy.rollingUpdate.maxUnavailable: replicas 1 with maxUnavailable 1: at each rollout the controller may remove the only pod before its replacement is available, so Service checkout-api has no ready endpoint until the new pod passes readiness. [replicas=1, maxUnavailable=1]\n' +
        '  fix: Set spec.strategy.rollingUpdate.maxUnavailable: 0 (keep maxSurge at 1 or 25 %), so the new pod becomes available before the old one goes; or run 2 replicas.',
    );
    d.metadata.annotations['rollwise.dev/overrides'] =
      'spec.strategy.rollingUpdate: Overridden: a batch-fed service, a minute without it is planned';
    expect(() => assertSafe([d, pdb(), service()])).not.toThrow();
    expect(lintObjects([d, pdb(), service()]).map((f) => f.status)).toEqual(['accepted']);
  });

  test('warnings do not fail synth', () => {
    const d = cleanDeployment();
    c0(d).readinessProbe.successThreshold = 1;
    expect(() => assertSafe([d, pdb(), service()])).not.toThrow();
  });
});

test('docs/rules.md equals rulesMarkdown()', () => {
  expect(fs.readFileSync(path.join(ROOT, 'docs', 'rules.md'), 'utf8')).toBe(rulesMarkdown());
});
