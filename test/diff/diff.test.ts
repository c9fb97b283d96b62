import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Duration } from 'cdk8s';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpServiceProps } from '../../src/constructs/http-service';
import { diffOutputs } from '../../src/diff/compare';
import { runDiff } from '../../src/diff/command';
import { main } from '../../src/cli/main';
import { formatDiffMarkdown, formatDiffText } from '../../src/diff/format';
import { resolveSide } from '../../src/diff/sources';
import { addEstate } from '../../src/environments';
import { checkoutApiProps } from '../../src/example';
import { exampleEnvironments } from '../../src/main';
import { synthesize } from '../../src/synth/synth';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-diff-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The example estate (as src/main.ts builds it) with the service's props changed by `change`. */
function synthExample(name: string, change: (p: HttpServiceProps) => HttpServiceProps = (p) => p): string {
  const outdir = path.join(tmp, name);
  synthesize(
    (dir) => {
      const app = new App({ outdir: dir });
      addEstate(app, {
        environments: exampleEnvironments(),
        services: { 'checkout-api': change(checkoutApiProps()) },
        perService: ({ environment, name: svc, service }) => {
          const settings = environment.platform.argoCd;
          if (!settings) return;
          const chart = environment.addChart(app, `${svc}-application`, {
            outputPath: `argocd/${environment.name}/${svc}.k8s.yaml`,
          });
          new ArgoCdApplication(chart, `${svc}-${environment.name}`, { service, settings, include: `${svc}.k8s.yaml` });
        },
      });
      return app;
    },
    { outdir },
  );
  return outdir;
}

const folder = (dir: string) => resolveSide(dir, 'dist', tmp);
const run = (sides: string[], extra: { format?: string; failOn?: string; cwd?: string; dir?: string } = {}) => {
  let out = '';
  let err = '';
  const code = runDiff({
    sides,
    ...extra,
    write: (s) => {
      out += s;
    },
    writeError: (s) => {
      err += s;
    },
  });
  return { code, out, err };
};

let base: string;
beforeAll(() => {
  base = synthExample('base');
});

describe('rollwise diff on the example', () => {
  it('p99 250 ms -> 1.6 s: the readiness timeout 3 s -> 4 s with both reasons, and only what follows from it', () => {
    const changed = synthExample('p99', (p) => ({
      ...p,
      health: { ...p.health, readinessP99UnderLoad: Duration.millis(1600) },
    }));
    const report = diffOutputs(folder(base), folder(changed));
    const prod = report.units.find((u) => u.unit === 'prod/checkout-api')!;
    const timeout = prod.values.find(
      (v) => v.path === 'spec.template.spec.containers[0].readinessProbe.timeoutSeconds',
    )!;
    expect(timeout).toMatchObject({ change: 'changed', old: 3, new: 4, object: 'Rollout/checkout/checkout-api' });
    expect(timeout.oldReason).toMatch(
      /p99 under peak load \(250 ms\b.*\) = 500 ms, rounded up to 1 s, raised to the 3 s floor/,
    );
    expect(timeout.newReason).toMatch(/p99 under peak load \(1\.6 s\b.*\) = 3\.2 s, rounded up to 4 s/);
    // Everything else that moved is derived from the readiness timeout (liveness 2x, startup = readiness).
    expect(prod.values.map((v) => `${v.path} ${String(v.old)}->${String(v.new)}`).sort()).toEqual([
      'spec.template.spec.containers[0].livenessProbe.timeoutSeconds 6->8',
      'spec.template.spec.containers[0].readinessProbe.timeoutSeconds 3->4',
      'spec.template.spec.containers[0].startupProbe.timeoutSeconds 3->4',
    ]);
    expect(prod.fields).toEqual([]);
    expect(prod.facts).toEqual([
      expect.objectContaining({
        path: 'metadata.annotations["rollwise.dev/readiness-p99-seconds"]',
        old: '0.25',
        new: '1.6',
      }),
    ]);
    expect(prod.overrides).toEqual([]);
    expect(prod.objectsAdded).toEqual([]);
    expect(prod.composition).toEqual([
      {
        figure: 'readiness timeout vs declared p99 (Rollout/checkout-api container app)',
        old: '3 s vs p99 0.25 s',
        new: '4 s vs p99 1.6 s',
      },
    ]);
    expect(report.units.map((u) => u.unit)).toEqual(['dev/checkout-api', 'prod/checkout-api']);
    expect(report.unchanged).toBe(2); // the two Argo CD Applications

    const text = formatDiffText(report);
    expect(text).toContain('spec.template.spec.containers[0].readinessProbe.timeoutSeconds: 3 -> 4');
    expect(text).toContain('was: 2 x the health path');
    expect(text).toContain('now: 2 x the health path');
    const md = formatDiffMarkdown(report, []);
    expect(md).toContain(
      '| `Rollout/checkout/checkout-api` | `spec.template.spec.containers[0].readinessProbe.timeoutSeconds` | `3` → `4` |',
    );
  });

  it('a CPU limit override shows the override with its reason and the lint finding it brings', () => {
    const because = 'this cluster bills by limit; throttling measured at 0.3 % over a peak';
    // 500m over the 250m request: a tight limit, which RW201 reports (a core or more over twice the request it leaves out).
    const changed = synthExample('cpu-limit', (p) => ({
      ...p,
      overrides: { ...p.overrides, cpuLimit: { value: '500m', because } },
    }));
    const report = diffOutputs(folder(base), folder(changed));
    const prod = report.units.find((u) => u.unit === 'prod/checkout-api')!;
    expect(prod.overrides).toEqual([
      expect.objectContaining({
        change: 'added',
        path: 'spec.template.spec.containers[0].resources.limits.cpu',
        newBecause: expect.stringContaining(because),
      }),
    ]);
    const introduced = prod.findingsIntroduced.filter((f) => f.ruleId.startsWith('RW201'));
    expect(introduced).toEqual([
      expect.objectContaining({
        status: 'accepted',
        justification: expect.stringContaining(because),
        object: 'Rollout/checkout/checkout-api',
      }),
    ]);
    expect(prod.composition).toContainEqual({
      figure: 'CPU limit (Rollout/checkout-api container app)',
      old: 'none',
      new: '500m',
    });
    // The throttling alert is inserted in the middle of the rule list: matched by alert name, it is one
    // added value, and the rules after it are not reported as changed.
    const rules = prod.values.filter((v) => v.object.startsWith('PrometheusRule/'));
    expect(rules.map((v) => [v.change, (v.new as { alert?: string }).alert])).toEqual([['added', 'CpuThrottlingHigh']]);
    // The old side has no CpuThrottlingHigh: its value there is absent, not the rule that sat at the
    // same index before (the review saw "rules[9]: alert: CanaryAnalysisFailed -> CpuThrottlingHigh").
    expect(rules[0]).toMatchObject({ path: 'spec.groups[0].rules[9]', old: undefined });
    expect(rules[0].details).toBeUndefined();
    expect(prod.fields).toEqual([]);
    const markdown = formatDiffMarkdown(report, []);
    expect(markdown).toContain('| `PrometheusRule/checkout/checkout-api` | `spec.groups[0].rules[9]` |');
    expect(markdown).not.toMatch(/alert: \w+ -> CpuThrottlingHigh/);
    expect(formatDiffText(report)).not.toMatch(/rules\[9\]: now decided = .*\(was \{"alert":"CanaryAnalysisFailed"/);

    // The override is reviewed: --fail-on override fails; an accepted finding is not an open error.
    expect(run([base, changed], { failOn: 'override' }).code).toBe(1);
    expect(run([base, changed], { failOn: 'error' }).code).toBe(0);
    const md = run([base, changed], { format: 'markdown', failOn: 'override' });
    expect(md.out).toContain('**override added**');
    expect(md.out).toContain(because);
    expect(md.out).toContain('This change fails the review gate');
  });

  it('two identical trees: no decided value changed', () => {
    const again = synthExample('again');
    const r = run([base, again]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no decided value changed: 4 service file(s) identical');
    expect(diffOutputs(folder(base), folder(again)).filesRead).toBe(0);
  });
});

describe('findings introduced and the exit code', () => {
  // One replica with maxUnavailable 1 behind a Service is an error (RW305: the rollout removes the
  // only pod the Service sends requests to first).
  const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop }
spec:
  replicas: ${replicas}
  strategy: { rollingUpdate: { maxUnavailable: 1 } }
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: web:1.0
          readinessProbe: { httpGet: { path: /ready, port: 8080 }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: 8080 }]
`;
  it('a change that introduces an error-level finding exits 1 and names it; its revert resolves it', () => {
    const a = path.join(tmp, 'lint-a');
    const b = path.join(tmp, 'lint-b');
    for (const [d, t] of [
      [a, 4],
      [b, 1],
    ] as const) {
      fs.mkdirSync(path.join(d, 'prod'), { recursive: true });
      fs.writeFileSync(path.join(d, 'prod', 'web.k8s.yaml'), deployment(t));
    }
    const r = run([a, b]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/new {6}error RW305/);
    expect(r.out).toContain('prod/web: new error RW305');
    const back = diffOutputs(folder(b), folder(a));
    expect(back.units[0].findingsResolved.map((f) => f.ruleId)).toEqual([expect.stringMatching(/^RW305/)]);
    expect(run([b, a]).code).toBe(0);
    expect(run([a, b], { failOn: 'none' }).code).toBe(0);
  });

  it('an image bump without a reason is listed as an undecided field', () => {
    const a = path.join(tmp, 'img-a');
    const b = path.join(tmp, 'img-b');
    fs.mkdirSync(a, { recursive: true });
    fs.mkdirSync(b, { recursive: true });
    fs.writeFileSync(path.join(a, 'web.k8s.yaml'), deployment(3));
    fs.writeFileSync(path.join(b, 'web.k8s.yaml'), deployment(3).replace('web:1.0', 'web:1.1'));
    const u = diffOutputs(folder(a), folder(b)).units[0];
    expect(u.fields).toEqual([
      { object: 'Deployment/shop/web', path: 'spec.template.spec.containers[0].image', old: 'web:1.0', new: 'web:1.1' },
    ]);
  });
});

describe('Git revisions', () => {
  const repo = path.join(tmp, 'repo');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      .toString()
      .trim();
  const service = (i: number, replicas: number) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: svc-${i}
  namespace: estate
  annotations:
    rollwise.dev/reasons: |-
      data.replicas: ${replicas} replicas for svc-${i} (test estate).
data:
  replicas: "${replicas}"
`;
  let first: string;
  let second: string;
  beforeAll(() => {
    fs.mkdirSync(path.join(repo, 'dist', 'prod'), { recursive: true });
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'test');
    for (let i = 0; i < 3000; i++)
      fs.writeFileSync(path.join(repo, 'dist', 'prod', `svc-${i}.k8s.yaml`), service(i, 2));
    fs.writeFileSync(path.join(repo, 'README.md'), 'estate\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'estate');
    first = git('rev-parse', 'HEAD');
    fs.writeFileSync(path.join(repo, 'dist', 'prod', 'svc-1234.k8s.yaml'), service(1234, 3));
    git('commit', '-q', '-am', 'svc-1234 to 3 replicas');
    second = git('rev-parse', 'HEAD');
  });

  it("a 3,000-service estate with one changed service reads only that service's two versions", () => {
    const report = diffOutputs(resolveSide(first, 'dist', repo), resolveSide(second, 'dist', repo));
    expect(report.units.map((u) => u.unit)).toEqual(['prod/svc-1234']);
    expect(report.unchanged).toBe(2999);
    expect(report.filesRead).toBe(2);
    expect(report.units[0].values).toEqual([
      expect.objectContaining({
        path: 'data.replicas',
        old: '2',
        new: '3',
        newReason: '3 replicas for svc-1234 (test estate).',
      }),
    ]);
  });

  it('default sides: the merge base with main vs the working tree, tracked changes and new files', () => {
    fs.writeFileSync(path.join(repo, 'dist', 'prod', 'svc-7.k8s.yaml'), service(7, 5));
    fs.writeFileSync(path.join(repo, 'dist', 'prod', 'svc-new.k8s.yaml'), service(9999, 2));
    try {
      const r = run([], { cwd: repo, format: 'json' });
      expect(r.err).toBe('');
      const json = JSON.parse(r.out) as {
        units: { unit: string; objectsAdded: string[] }[];
        unchanged: number;
        filesRead: number;
        old: string;
      };
      expect(json.old).toBe(`dist@${second}`);
      expect(json.units.map((u) => u.unit)).toEqual(['prod/svc-7', 'prod/svc-new']);
      expect(json.units[1].objectsAdded).toEqual(['ConfigMap/estate/svc-9999']);
      expect(json.filesRead).toBe(3);
      expect(json.unchanged).toBe(2999);
    } finally {
      git('checkout', '-q', '--', 'dist');
      fs.rmSync(path.join(repo, 'dist', 'prod', 'svc-new.k8s.yaml'));
    }
  });

  it('unusable input exits 2 with what was expected', () => {
    expect(run(['no-such-rev-or-folder'], { cwd: repo })).toMatchObject({
      code: 2,
      err: expect.stringContaining('"no-such-rev-or-folder" is neither a folder nor a Git revision'),
    });
    expect(run([first, second], { cwd: repo, format: 'html' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--format html: expected text, json or markdown'),
    });
    expect(run([first, second], { cwd: repo, failOn: 'errors' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--fail-on errors'),
    });
    expect(run([], { cwd: tmp })).toMatchObject({
      code: 2,
      err: expect.stringContaining('not inside a Git repository'),
    });
  });
});

describe('Markdown for a pull-request comment', () => {
  it('shows the first services expanded, collapses the rest and stays under the size cap', () => {
    const a = path.join(tmp, 'many-a');
    const b = path.join(tmp, 'many-b');
    for (const d of [a, b]) fs.mkdirSync(d, { recursive: true });
    const cm = (i: number, v: number) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s${i}\n  annotations:\n    rollwise.dev/reasons: "data.v: ${'reason '.repeat(40)}${v}"\ndata:\n  v: "${v}"\n`;
    for (let i = 0; i < 400; i++) {
      fs.writeFileSync(path.join(a, `s${i}.k8s.yaml`), cm(i, 1));
      fs.writeFileSync(path.join(b, `s${i}.k8s.yaml`), cm(i, 2));
    }
    const report = diffOutputs(folder(a), folder(b));
    const md = formatDiffMarkdown(report, [], { expanded: 3, maxChars: 60000 });
    expect(md.length).toBeLessThanOrEqual(60000);
    expect((md.match(/^#### /gm) ?? []).length).toBe(3);
    expect(md).toContain('<details><summary><b>s100</b>');
    expect(md).toMatch(/\d+ more changed service file\(s\) not shown \(comment size\)/);
  });
});

describe('the rollwise diff command', () => {
  it('runs from the CLI with its options and documents an example in --help', async () => {
    let out = '';
    let err = '';
    const argv = (args: string[]) =>
      main(
        ['node', 'rollwise', ...args],
        (t) => {
          out += t;
        },
        (t) => {
          err += t;
        },
      );
    const again = synthExample('cli-again');
    expect(await argv(['diff', base, again, '--format', 'json'])).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ units: [], unchanged: 4, exitCode: 0, failing: [] });
    out = '';
    expect(await argv(['diff', '--help'])).toBe(0);
    expect(out).toContain('rollwise diff origin/main HEAD -f markdown');
    expect(await argv(['diff', base, again, 'third'])).toBe(2);
    expect(err).toContain('at most two sides');
  });
});

describe('list elements matched by their identity key before their position', () => {
  const side = (
    name: string,
    mounts: { name: string; mountPath: string }[],
    env: { name: string; value: string }[],
  ) => {
    const dir = path.join(tmp, name);
    fs.mkdirSync(path.join(dir, 'prod'), { recursive: true });
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { spec: { containers: [{ name: 'app', image: 'x:1', env, volumeMounts: mounts }] } } },
    };
    fs.writeFileSync(path.join(dir, 'prod', 'web.k8s.yaml'), JSON.stringify(d));
    return dir;
  };
  it('an env var inserted first, and a second mount of one volume (a mount is named by its mountPath): only those are reported', () => {
    const a = side(
      'id-a',
      [{ name: 'cfg', mountPath: '/etc/a' }],
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    );
    const b = side(
      'id-b',
      [
        { name: 'cfg', mountPath: '/etc/b' },
        { name: 'cfg', mountPath: '/etc/a' },
      ],
      [
        { name: 'X', value: '0' },
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    );
    const unit = diffOutputs(folder(a), folder(b)).units[0];
    expect(unit.fields.map((f) => `${f.path}: ${String(f.old)} -> ${String(f.new)}`).sort()).toEqual([
      'spec.template.spec.containers[0].env[0].name: undefined -> X',
      'spec.template.spec.containers[0].env[0].value: undefined -> 0',
      'spec.template.spec.containers[0].volumeMounts[0].mountPath: undefined -> /etc/b',
      'spec.template.spec.containers[0].volumeMounts[0].name: undefined -> cfg',
    ]);
  });
});
