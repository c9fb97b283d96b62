import * as fs from 'fs';
import * as path from 'path';
import { RollwiseInputError } from '../errors';

export interface InitOptions {
  /**
   * The first service's name (a DNS label).
   * @default the folder's name, made a DNS label
   */
  readonly service?: string;
  /**
   * Overwrite files that exist with other content (package.json is always merged, never replaced).
   * @default false: refuse, naming every file that differs, and write nothing
   */
  readonly force?: boolean;
  /**
   * rollwise's version for the new package.json.
   * @default this rollwise's version
   */
  readonly version?: string;
}

export interface InitResult {
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
}

/** What `rollwise init` writes, relative to the target folder. */
export function initFiles(service: string): Record<string, string> {
  return {
    'platform.ts': platformTs(),
    'main.ts': mainTs(service),
    'cdk8s.yaml': CDK8S_YAML,
    'tsconfig.json': TSCONFIG,
    '.gitignore': 'node_modules/\nlib/\nrollwise.sarif\n',
    'test/golden-path.test.js': testJs(service),
    '.github/workflows/rollwise.yml': WORKFLOW,
    'README.md': readme(service),
  };
}

/**
 * Scaffolds a golden-path repository into `dir` (or adds rollwise to the cdk8s app there).
 * Idempotent: a second run changes nothing. A file that exists with other content is a conflict:
 * without `force` nothing is written and the error names every conflicting file. package.json is
 * merged: missing scripts and dependencies are added; a script of the same name with another
 * command is a conflict.
 */
export function initProject(dir: string, opts: InitOptions = {}): InitResult {
  const root = path.resolve(dir);
  const service = opts.service ?? dnsLabel(path.basename(root));
  if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(service)) {
    throw new RollwiseInputError('--service', service, 'the service name becomes object names and file names, which must be DNS labels.', 'pass --service <name> with lowercase letters, digits and "-", starting with a letter.');
  }
  const files = initFiles(service);
  const pkgFile = path.join(root, 'package.json');
  const existingPkg = fs.existsSync(pkgFile) ? fs.readFileSync(pkgFile, 'utf8') : undefined;
  const merged = mergePackageJson(existingPkg, service, opts.version ?? '0.1.0', !!opts.force);
  const conflicts = [...merged.conflicts];
  const plan: { rel: string; content: string; state: 'created' | 'updated' | 'unchanged' }[] = [];
  for (const [rel, content] of [...Object.entries(files), ['package.json', merged.content] as [string, string]]) {
    const full = path.join(root, rel);
    if (!fs.existsSync(full)) plan.push({ rel, content, state: 'created' });
    else if (fs.readFileSync(full, 'utf8') === content) plan.push({ rel, content, state: 'unchanged' });
    else {
      if (!opts.force && rel !== 'package.json') conflicts.push(`${rel} exists with other content`);
      plan.push({ rel, content, state: 'updated' });
    }
  }
  if (conflicts.length > 0) {
    throw new RollwiseInputError('rollwise init', root, `it would overwrite what is there: ${conflicts.join('; ')}.`, 'move those files aside, or pass --force to overwrite them (package.json is merged, never replaced).');
  }
  for (const f of plan) {
    if (f.state === 'unchanged') continue;
    const full = path.join(root, f.rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, f.content);
  }
  const pick = (s: string) => plan.filter((f) => f.state === s).map((f) => f.rel).sort();
  return { created: pick('created'), updated: pick('updated'), unchanged: pick('unchanged') };
}

function dnsLabel(name: string): string {
  const s = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').replace(/-+$/, '').slice(0, 63).replace(/-+$/, '');
  return s || 'service';
}

const SCRIPTS: Record<string, string> = {
  build: 'tsc -p .',
  synth: 'rollwise synth',
  'synth:check': 'rollwise synth --check',
  lint: 'rollwise lint dist',
  test: 'tsc -p . && node --test test/',
};

function mergePackageJson(existing: string | undefined, service: string, version: string, force: boolean): { content: string; conflicts: string[] } {
  let pkg: Record<string, unknown>;
  try {
    pkg = existing === undefined ? { name: service, version: '0.0.0', private: true } : (JSON.parse(existing) as Record<string, unknown>);
  } catch (e) {
    throw new RollwiseInputError('package.json', '(unparsable)', `it is not valid JSON: ${(e as Error).message}.`, 'fix package.json, then run rollwise init again.');
  }
  const conflicts: string[] = [];
  const section = (key: string): Record<string, string> => {
    const v = pkg[key];
    return typeof v === 'object' && v !== null ? { ...(v as Record<string, string>) } : {};
  };
  const scripts = section('scripts');
  for (const [k, v] of Object.entries(SCRIPTS)) {
    if (scripts[k] !== undefined && scripts[k] !== v && !force) conflicts.push(`package.json script "${k}" is \`${scripts[k]}\`, not \`${v}\``);
    else scripts[k] = v;
  }
  const deps = section('dependencies');
  const devDeps = section('devDependencies');
  const want: [Record<string, string>, string, string][] = [
    [deps, 'rollwise', `^${version}`],
    // rollwise's peer dependencies (its package.json), the versions it is tested with
    [deps, 'cdk8s', '^2.70.106'],
    [deps, 'cdk8s-plus-28', '^2.5.6'],
    [deps, 'constructs', '^10.8.1'],
    [devDeps, 'cdk8s-cli', '^2.207.60'],
    [devDeps, 'typescript', '~5.9.3'],
    [devDeps, '@types/node', '^20.19.43'],
  ];
  for (const [where, name, range] of want) if (deps[name] === undefined && devDeps[name] === undefined) where[name] = range;
  const out: Record<string, unknown> = { ...pkg, scripts, dependencies: sortKeys(deps), devDependencies: sortKeys(devDeps) };
  return { content: `${JSON.stringify(out, null, 2)}\n`, conflicts };
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

const CDK8S_YAML = `language: typescript
# Compiles main.ts, then runs it. \`cdk8s synth\` and \`npx rollwise synth\` both run this and write
# the same files: main.ts builds a RollwiseApp, whose synth() adds the reasons, runbooks and checks.
app: npx tsc -p . && node lib/main.js
output: dist
`;

const TSCONFIG = `${JSON.stringify({
  compilerOptions: {
    target: 'ES2020',
    module: 'CommonJS',
    lib: ['es2020'],
    strict: true,
    noImplicitAny: true,
    noImplicitReturns: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noFallthroughCasesInSwitch: true,
    declaration: false,
    outDir: 'lib',
    rootDir: '.',
  },
  include: ['*.ts'],
}, null, 2)}\n`;

function platformTs(): string {
  return `import { Platform } from 'rollwise';

/**
 * The platform team's settings, shared by every service. Each value below is the organisation's
 * fact; the reason is beside it. The safety settings rollwise decides itself (readiness period
 * 10 s, start-up budget 60 s, utilisation ceiling 80 % for disruption budgets, endpoint propagation
 * 10 s, shutdown drain 20 s, shutdown by \`sleep\`) carry their reasons in every manifest
 * (\`npx rollwise explain dist/<env>/<service>.k8s.yaml\`); change one only with a reason:
 * \`readinessPeriod: { value: Duration.seconds(5), because: '...' }\`.
 */
export function platform(env: string, server: string): Platform {
  const folder = \`dist/\${env}\`;
  return new Platform({
    // The shared Envoy Gateway every service's HTTPRoute attaches to (canary traffic is split there).
    gateway: { name: 'public', namespace: 'envoy-gateway-system' },
    // The Prometheus that scrapes the Envoy proxies and kube-state-metrics: the canary analysis and
    // the alerts query it (docs/cluster.md in the rollwise package lists what must be scraped).
    prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
    // Argo CD deploys each environment from its folder of the committed output.
    argoCd: { repoURL: 'https://github.com/acme/deploy.git', path: folder, server },
    // Every alert links to its section of the runbook that synth writes beside the manifests.
    runbookBaseUrl: \`https://github.com/acme/deploy/blob/main/\${folder}\`,
    // The label your Prometheus operator selects PrometheusRules by.
    prometheusRuleLabels: { release: 'kube-prometheus-stack' },
  });
}
`;
}

function mainTs(service: string): string {
  return `import { Duration } from 'cdk8s';
import { addEstate, AppServer, ArgoCdApplication, Environment, HttpServiceProps, RollwiseApp, Sizing } from 'rollwise';
import { platform } from './platform';

const server = 'https://kubernetes.default.svc';

/** The environments: dev runs 2 replicas of each service at dev's traffic, prod runs them as described. */
export const environments = (): Environment[] => [
  // dev gets its own hostnames (checkout.example.com -> checkout.dev.example.com): both environments
  // share one cluster and Gateway, where two routes claiming one host would split its traffic.
  // Its canary's volume gate is sized from dev's own traffic: replace 40 req/s with what dev sees
  // (without a figure synth refuses the canary: the default gate would pause every dev release), or
  // deliver dev without a canary: adjust: (props) => ({ ...props, delivery: Delivery.rollingUpdate() }).
  new Environment({
    name: 'dev', destination: { server, namespace: '${service}-dev' }, platform: platform('dev', server), sizing: Sizing.fixed(2, { peakRequestsPerSecond: 40 }),
    adjust: (props) => ({ ...props, route: props.route && { ...props.route, hostnames: props.route.hostnames.map((h) => h.replace(/^([^.]+)\\./, '$1.dev.')) } }),
  }),
  new Environment({ name: 'prod', destination: { server, namespace: '${service}' }, platform: platform('prod', server), sizing: Sizing.asGiven() }),
];

/**
 * ${service}, described by what the team measured. Replace each value with yours: the health
 * path's p99 is measured under peak load (not the median, not idle), capacity from a load test.
 */
export const services: Record<string, HttpServiceProps> = {
  '${service}': {
    image: 'ghcr.io/acme/${service}:1.0.0',
    port: 8080,
    replicas: 12,
    health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(250) },
    resources: { cpu: '250m', memory: '512Mi' },
    appServer: AppServer.uvicorn(),
    capacity: { peakRequestsPerSecond: 3700, saturationRequestsPerSecondPerReplica: 450 },
    route: { hostnames: ['${service}.example.com'] },
  },
};

/**
 * Every service in every environment (\`dist/<env>/<service>.k8s.yaml\` and its runbook), and one
 * Argo CD Application per service and environment in \`dist/argocd/<env>/\`, outside the folder it
 * deploys so it never applies itself. Apply \`dist/argocd/<env>/\` once; Argo CD follows Git.
 */
export function buildApp(outdir?: string): RollwiseApp {
  const app = new RollwiseApp({ outdir });
  addEstate(app, {
    environments: environments(),
    services,
    perService: ({ environment, name, service }) => {
      const settings = environment.platform.argoCd;
      if (!settings) return;
      const chart = environment.addChart(app, \`\${name}-application\`, { outputPath: \`argocd/\${environment.name}/\${name}.k8s.yaml\` });
      new ArgoCdApplication(chart, \`\${name}-\${environment.name}\`, { service, settings, include: \`\${name}.k8s.yaml\` });
    },
  });
  return app;
}

if (require.main === module) buildApp().synth();
`;
}

function testJs(service: string): string {
  return `// The golden path's own tests (node --test): the committed output is what the code gives, and
// every manifest passes rollwise's composition checks. \`npm test\` compiles main.ts first.
const { test } = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const rollwise = (...args) => spawnSync(process.execPath, [require.resolve('rollwise/bin/rollwise.js'), ...args], { cwd: root, encoding: 'utf8' });

test('the committed dist/ is what the code synthesizes (run \`npm run synth\` and commit)', () => {
  const r = rollwise('synth', '--check');
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
});

test('every environment gets its manifests, its runbook and its Argo CD Application', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'golden-path-'));
  try {
    const r = rollwise('synth', '--out', out);
    assert.strictEqual(r.status, 0, r.stderr);
    for (const env of ['dev', 'prod']) {
      const manifest = fs.readFileSync(path.join(out, env, '${service}.k8s.yaml'), 'utf8');
      assert.match(manifest, /rollwise.dev\\/reasons/);
      assert.ok(fs.existsSync(path.join(out, env, '${service}.runbook.md')));
      assert.ok(fs.existsSync(path.join(out, 'argocd', env, '${service}.k8s.yaml')));
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

test('rollwise lint passes on the committed output', () => {
  const r = rollwise('lint', 'dist');
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
});
`;
}

const WORKFLOW = `# The golden path's checks on every push and pull request.
name: rollwise
on:
  push:
    branches: [main]
  pull_request:
permissions:
  contents: read
  security-events: write # SARIF upload to code scanning
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: tests (compile, committed output in sync, lint)
        run: npm test
      - name: synthesized output matches the code (drift check)
        run: npx rollwise synth --check
      - name: rollwise lint (SARIF)
        run: npx rollwise lint dist --format sarif > rollwise.sarif
      - name: upload lint findings to code scanning
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: rollwise.sarif
          category: rollwise
`;

function readme(service: string): string {
  return `# ${service}: golden-path manifests

\`\`\`sh
npm install && npm run synth   # synthesize every environment into dist/ (commit it)
npm test                       # compile, check dist/ is in sync, lint it
\`\`\`

Generated by \`rollwise init\`. Edit \`main.ts\` (the services, with the values your team measured)
and \`platform.ts\` (the platform's settings), then \`npm run synth\` and commit \`dist/\`.

- \`dist/<env>/${service}.k8s.yaml\`: the manifests, each decided value with its reason beside it;
  \`npx rollwise explain dist/prod/${service}.k8s.yaml\` prints them.
- \`dist/<env>/${service}.runbook.md\`: the runbook the alerts link to.
- \`dist/argocd/<env>/\`: the Argo CD Applications; apply them once, Argo CD then follows Git.
  Roll back with \`git revert\`, not \`kubectl rollout undo\` (self-heal brings the bad version back).
- \`.github/workflows/rollwise.yml\`: tests, the drift check and the lint with SARIF upload.

The cluster needs Argo Rollouts with the Gateway API plugin, Envoy Gateway, Prometheus scraping the
Envoy proxies and kube-state-metrics, and Argo CD: \`node_modules/rollwise/docs/cluster.md\`.
`;
}
