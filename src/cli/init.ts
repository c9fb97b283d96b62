import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
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
   * rollwise's version, for the dependency when it was installed from the registry.
   * @default this rollwise's version
   */
  readonly version?: string;
  /**
   * The rollwise dependency for package.json, as it was installed: a tarball path
   * (`file:../rollwise-0.1.0.tgz`), a Git URL, or a registry range.
   * @default what `installedDependency()` finds for the running copy, else `^<version>`
   */
  readonly dependency?: string;
}

export interface InitResult {
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly unchanged: readonly string[];
  /** What the user still has to do (e.g. the two lines to add to a main.ts rollwise did not recognise). */
  readonly notes: readonly string[];
  /** "scaffold" for a new repository, "adopt" when rollwise joined an existing cdk8s app. */
  readonly mode: 'scaffold' | 'adopt';
}

/** What `rollwise init` writes, relative to the target folder. */
export function initFiles(service: string): Record<string, string> {
  return {
    'platform.ts': platformTs(),
    'main.ts': mainTs(service),
    'cdk8s.yaml': CDK8S_YAML,
    'tsconfig.json': TSCONFIG,
    // .schemas/: the pinned schemas `rollwise schemas fetch` downloads (not committed)
    '.gitignore': 'node_modules/\nlib/\nrollwise.sarif\n.schemas/\n',
    'test/golden-path.test.js': testJs('../lib/main'),
    '.github/workflows/rollwise.yml': WORKFLOW,
    'README.md': readme(service),
  };
}

/**
 * Scaffolds a golden-path repository into `dir`, or adds rollwise to the cdk8s app there (a
 * folder whose cdk8s.yaml rollwise did not write, e.g. from `cdk8s init typescript-app`).
 * Idempotent: a second run changes nothing. A file that exists with other content is a conflict:
 * without `force` nothing is written and the error names every conflicting file. package.json is
 * merged: missing scripts and dependencies are added; in a new repository a script of the same
 * name with another command is a conflict, in an existing app its own scripts are kept.
 */
export function initProject(dir: string, opts: InitOptions = {}): InitResult {
  const root = path.resolve(dir);
  const service = opts.service ?? dnsLabel(path.basename(root));
  if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(service)) {
    throw new RollwiseInputError(
      '--service',
      service,
      'the service name becomes object names and file names, which must be DNS labels.',
      'pass --service <name> with lowercase letters, digits and "-", starting with a letter.',
    );
  }
  const dependency = opts.dependency ?? installedDependency(root) ?? `^${opts.version ?? '0.1.0'}`;
  const cdk8sYaml = path.join(root, 'cdk8s.yaml');
  if (fs.existsSync(cdk8sYaml) && fs.readFileSync(cdk8sYaml, 'utf8') !== CDK8S_YAML && !opts.force)
    return adoptProject(root, service, dependency);
  const files = initFiles(service);
  const pkgFile = path.join(root, 'package.json');
  const existingPkg = fs.existsSync(pkgFile) ? fs.readFileSync(pkgFile, 'utf8') : undefined;
  const merged = mergePackageJson(existingPkg, service, dependency, !!opts.force);
  const conflicts = [...merged.conflicts];
  const plan: Plan = [];
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
    throw new RollwiseInputError(
      'rollwise init',
      root,
      `it would overwrite what is there: ${conflicts.join('; ')}.`,
      'move those files aside, or pass --force to overwrite them (package.json is merged, never replaced).',
    );
  }
  return writePlan(root, plan, [], 'scaffold');
}

type Plan = { rel: string; content: string; state: 'created' | 'updated' | 'unchanged' }[];

function writePlan(root: string, plan: Plan, notes: string[], mode: InitResult['mode']): InitResult {
  for (const f of plan) {
    if (f.state === 'unchanged') continue;
    const full = path.join(root, f.rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, f.content);
  }
  const pick = (s: string) =>
    plan
      .filter((f) => f.state === s)
      .map((f) => f.rel)
      .sort();
  return { created: pick('created'), updated: pick('updated'), unchanged: pick('unchanged'), notes, mode };
}

/**
 * Adds rollwise to the cdk8s app in `root` without touching what is the app's own: platform.ts
 * and rollwise.ts (the services and environments, `addRollwise(app)`) beside its main.ts, a jest
 * test when the app tests with jest (the `cdk8s init typescript-app` template does), the CI
 * workflow, and the dependencies in package.json (its scripts are kept: its `cdk8s synth` writes
 * what `rollwise synth` writes). A main.ts that is still the template's shape (one `new App()`, one
 * `app.synth()`) is switched to a RollwiseApp that adds the rollwise charts; any other main.ts is
 * left alone, and the notes say which two lines to add.
 */
function adoptProject(root: string, service: string, dependency: string): InitResult {
  const pkgFile = path.join(root, 'package.json');
  const existingPkg = fs.existsSync(pkgFile) ? fs.readFileSync(pkgFile, 'utf8') : undefined;
  const pkgJson =
    existingPkg === undefined
      ? {}
      : (JSON.parse(existingPkg) as {
          scripts?: Record<string, string>;
          devDependencies?: Record<string, string>;
          dependencies?: Record<string, string>;
        });
  const scripts = pkgJson.scripts ?? {};
  const adoptScripts: Record<string, string> = {};
  if (scripts.synth === undefined) adoptScripts.synth = 'rollwise synth';
  if (scripts['synth:check'] === undefined) adoptScripts['synth:check'] = 'rollwise synth --check';
  adoptScripts[scripts.lint === undefined || scripts.lint === 'rollwise lint dist' ? 'lint' : 'lint:rollwise'] =
    'rollwise lint dist';
  const jest =
    /\bjest\b/.test(scripts.test ?? '') ||
    fs.existsSync(path.join(root, 'jest.config.js')) ||
    fs.existsSync(path.join(root, 'jest.config.ts'));
  if (!jest && scripts.test === undefined) adoptScripts.test = 'node --test test/';
  else if (!jest) adoptScripts['test:rollwise'] = 'node --test test/';
  const merged = mergePackageJson(existingPkg, service, dependency, false, adoptScripts);
  const files: Record<string, string> = {
    'platform.ts': platformTs(),
    'rollwise.ts': mainTs(service, true),
    '.github/workflows/rollwise.yml': WORKFLOW,
    [jest ? 'rollwise.test.ts' : 'test/rollwise.test.js']: jest ? jestTestTs() : testJs(),
    'package.json': merged.content,
  };
  const notes: string[] = [];
  const mainFile = path.join(root, 'main.ts');
  const main = fs.existsSync(mainFile) ? fs.readFileSync(mainFile, 'utf8') : undefined;
  if (main !== undefined && !/\baddRollwise\(/.test(main)) {
    const patched = adoptMain(main);
    if (patched !== undefined) files['main.ts'] = patched;
    else
      notes.push(
        "main.ts is not the cdk8s template's shape, so it was left as it is: build the app with `const app = new " +
          "RollwiseApp();` (import { RollwiseApp } from 'rollwise') and call `addRollwise(app);` (import { " +
          "addRollwise } from './rollwise') before `app.synth()`.",
      );
  } else if (main === undefined) {
    notes.push(
      'there is no main.ts: in the file your cdk8s.yaml runs, build the app with `new RollwiseApp()` from ' +
        "'rollwise' and call `addRollwise(app)` from './rollwise' before `app.synth()`.",
    );
  }
  const ignore = path.join(root, '.gitignore');
  const lines = fs.existsSync(ignore) ? fs.readFileSync(ignore, 'utf8') : '';
  const output = outputFolder(fs.readFileSync(path.join(root, 'cdk8s.yaml'), 'utf8'));
  const committed = commitOutput(lines, output);
  if (committed.removed.length > 0) {
    notes.push(
      `.gitignore ignored the output folder (${committed.removed.map((l) => `line "${l}"`).join(', ')}), ` +
        `so ${output}/ would never be committed: Argo CD applies the committed ${output}/ and a clean clone's ` +
        `\`rollwise synth --check\` would find every file missing. That line was removed; nothing else in .gitignore ` +
        `changed. Commit ${output}/ after \`npm run synth\`.`,
    );
  }
  const kept = committed.text;
  if (!kept.split('\n').includes('rollwise.sarif'))
    files['.gitignore'] = `${kept}${kept === '' || kept.endsWith('\n') ? '' : '\n'}rollwise.sarif\n`;
  else if (kept !== lines) files['.gitignore'] = kept;
  const conflicts = [...merged.conflicts];
  const plan: Plan = [];
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    if (!fs.existsSync(full)) plan.push({ rel, content, state: 'created' });
    else if (fs.readFileSync(full, 'utf8') === content) plan.push({ rel, content, state: 'unchanged' });
    else if (['package.json', 'main.ts', '.gitignore'].includes(rel)) plan.push({ rel, content, state: 'updated' });
    else conflicts.push(`${rel} exists with other content`);
  }
  if (conflicts.length > 0) {
    throw new RollwiseInputError(
      'rollwise init',
      root,
      `it adds rollwise to the cdk8s app there and would overwrite: ${conflicts.join('; ')}.`,
      'move those files aside and run rollwise init again.',
    );
  }
  return writePlan(root, plan, notes, 'adopt');
}

/**
 * The folder `cdk8s synth` writes to: cdk8s.yaml's `output:`, else "dist" (cdk8s-cli's default,
 * lib/cli/cmds/synth.js DEFAULT_OUTPUT_DIR in cdk8s-cli 2.207.60), without "./" or a trailing "/".
 */
function outputFolder(cdk8sYaml: string): string {
  let output: unknown;
  try {
    output = (YAML.parse(cdk8sYaml) as { output?: unknown } | null)?.output;
  } catch {
    output = undefined;
  }
  return (typeof output === 'string' && output.trim() !== '' ? output.trim() : 'dist')
    .replace(/^\.\//, '')
    .replace(/\/+$/, '');
}

/**
 * `gitignore` without the lines that ignore the output folder itself (`dist`, `dist/`, `/dist`,
 * `/dist/`, `dist/*`, `dist/**`, as `cdk8s init typescript-app` writes `dist/` in its .gitignore,
 * cdk8s-cli templates/typescript-app/{{}}.gitignore), every other line and the line endings as they
 * were. The output is what Argo CD applies, so it must be committed.
 */
export function commitOutput(gitignore: string, output: string): { text: string; removed: string[] } {
  const folder = output.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ignoresOutput = new RegExp(`^/?${folder}(/|/\\*|/\\*\\*)?$`);
  const removed: string[] = [];
  const parts = gitignore.split(/(?<=\n)/);
  const text = parts
    .filter((line) => {
      const hit = ignoresOutput.test(line.replace(/\r?\n$/, '').trim());
      if (hit) removed.push(line.replace(/\r?\n$/, '').trim());
      return !hit;
    })
    .join('');
  return { text, removed };
}

/**
 * The template's main.ts (cdk8s-cli templates/typescript-app: `const app = new App();`, the chart,
 * `app.synth();`) switched to a RollwiseApp that also adds the rollwise charts; undefined for a
 * main.ts of another shape.
 */
function adoptMain(main: string): string | undefined {
  const newApp = /^const app = new App\(\);$/m;
  const synth = /^app\.synth\(\);$/m;
  const imp = /^import \{([^}]*)\} from 'cdk8s';$/m;
  const count = (re: RegExp) => (main.match(new RegExp(re.source, 'gm')) ?? []).length;
  const names = imp
    .exec(main)?.[1]
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (count(newApp) !== 1 || count(synth) !== 1 || !names?.includes('App')) return undefined;
  let out = main.replace(newApp, 'const app = new RollwiseApp();').replace(synth, 'addRollwise(app);\napp.synth();');
  // App is unused now unless the app names it elsewhere (the template's tsconfig has noUnusedLocals).
  const rest = out.replace(imp, '');
  const kept = /\bApp\b/.test(rest) ? names : names.filter((n) => n !== 'App');
  out = out.replace(
    imp,
    `${kept.length ? `import { ${kept.join(', ')} } from 'cdk8s';\n` : ''}import { RollwiseApp } from ` +
      `'rollwise';\nimport { addRollwise } from './rollwise';`,
  );
  return out;
}

/**
 * The rollwise dependency as the running copy was installed, for the package.json `rollwise init`
 * writes into `target`: the spec in the package.json of the project that installed it (npm writes
 * a tarball as `file:<path>`, a Git source as its URL, a registry install as a range), a file path
 * made relative to `target`; undefined when this copy is no installed package (a source checkout:
 * then `file:` of its folder, which npm links).
 */
export function installedDependency(target: string, from: string = __dirname): string | undefined {
  let pkgRoot: string | undefined;
  for (let dir = from; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === 'rollwise') {
      pkgRoot = dir;
      break;
    }
  }
  if (pkgRoot === undefined) return undefined;
  const relFile = (abs: string) => `file:${path.relative(target, abs).split(path.sep).join('/') || '.'}`;
  if (path.basename(path.dirname(pkgRoot)) !== 'node_modules') return relFile(pkgRoot);
  const installer = path.dirname(path.dirname(pkgRoot));
  let spec: string | undefined;
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(installer, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    spec = pkg.dependencies?.rollwise ?? pkg.devDependencies?.rollwise ?? pkg.optionalDependencies?.rollwise;
  } catch {
    spec = undefined;
  }
  if (spec === undefined) return undefined;
  const file = /^file:(.*)$/.exec(spec);
  if (file) return relFile(path.resolve(installer, file[1]));
  if (/^(\.{0,2}\/|~\/)/.test(spec) || /\.t(ar\.)?gz$/.test(spec)) return relFile(path.resolve(installer, spec));
  return spec; // a Git URL (git+https:, github:, ...) or a registry range, valid anywhere
}

function dnsLabel(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return s || 'service';
}

const SCRIPTS: Record<string, string> = {
  build: 'tsc -p .',
  synth: 'rollwise synth',
  'synth:check': 'rollwise synth --check',
  lint: 'rollwise lint dist',
  test: 'tsc -p . && node --test test/',
};

function mergePackageJson(
  existing: string | undefined,
  service: string,
  dependency: string,
  force: boolean,
  scriptsWanted: Record<string, string> = SCRIPTS,
): { content: string; conflicts: string[] } {
  let pkg: Record<string, unknown>;
  try {
    pkg =
      existing === undefined
        ? { name: service, version: '0.0.0', private: true }
        : (JSON.parse(existing) as Record<string, unknown>);
  } catch (e) {
    throw new RollwiseInputError(
      'package.json',
      '(unparsable)',
      `it is not valid JSON: ${(e as Error).message}.`,
      'fix package.json, then run rollwise init again.',
    );
  }
  const conflicts: string[] = [];
  const section = (key: string): Record<string, string> => {
    const v = pkg[key];
    return typeof v === 'object' && v !== null ? { ...(v as Record<string, string>) } : {};
  };
  const scripts = section('scripts');
  for (const [k, v] of Object.entries(scriptsWanted)) {
    if (scripts[k] !== undefined && scripts[k] !== v && !force)
      conflicts.push(`package.json script "${k}" is \`${scripts[k]}\`, not \`${v}\``);
    else scripts[k] = v;
  }
  const deps = section('dependencies');
  const devDeps = section('devDependencies');
  const want: [Record<string, string>, string, string][] = [
    [deps, 'rollwise', dependency],
    // rollwise's peer dependencies (its package.json), the versions it is tested with
    [deps, 'cdk8s', '^2.70.106'],
    [deps, 'cdk8s-plus-28', '^2.5.6'],
    [deps, 'constructs', '^10.8.1'],
    [devDeps, 'cdk8s-cli', '^2.207.60'],
    [devDeps, 'typescript', '~5.9.3'],
    [devDeps, '@types/node', '^20.19.43'],
  ];
  const before = { deps: Object.keys(deps), devDeps: Object.keys(devDeps) };
  for (const [where, name, range] of want)
    if (deps[name] === undefined && devDeps[name] === undefined) where[name] = range;
  // a section the project already has keeps its order (new entries after it); a new one is sorted
  const order = (o: Record<string, string>, had: string[]) =>
    had.length
      ? Object.fromEntries([...had, ...Object.keys(sortKeys(o)).filter((k) => !had.includes(k))].map((k) => [k, o[k]]))
      : sortKeys(o);
  const out: Record<string, unknown> = {
    ...pkg,
    scripts,
    dependencies: order(deps, before.deps),
    devDependencies: order(devDeps, before.devDeps),
  };
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

const TSCONFIG = `${JSON.stringify(
  {
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
  },
  null,
  2,
)}\n`;

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
    // Argo CD deploys each environment from its folder of the committed output. It creates each
    // namespace (CreateNamespace=true); a service whose migration needs a ServiceAccount or Secret
    // there needs the namespace made first, with them: add namespaces: NamespacePolicy.existing()
    // (docs/cluster.md in the rollwise package, Namespaces).
    argoCd: { repoURL: 'https://github.com/acme/deploy.git', path: folder, server },
    // Every alert links to its section of the runbook that synth writes beside the manifests.
    runbookBaseUrl: \`https://github.com/acme/deploy/blob/main/\${folder}\`,
    // The label your Prometheus operator selects PrometheusRules by.
    prometheusRuleLabels: { release: 'kube-prometheus-stack' },
  });
}
`;
}

/**
 * The services and environments. Scaffolded as main.ts (it builds the RollwiseApp); in an existing
 * cdk8s app as rollwise.ts, which adds the same charts to the app's own RollwiseApp (`adopt`).
 */
function mainTs(service: string, adopt = false): string {
  return `import { ${adopt ? 'App, ' : ''}Duration } from 'cdk8s';
import { addEstate, AppServer, ArgoCdApplication, Environment, HttpServiceProps, ${
    adopt ? '' : 'RollwiseApp, '
  }Sizing } from 'rollwise';
import { platform } from './platform';

const server = 'https://kubernetes.default.svc';

/** The environments: dev runs 2 replicas of each service at dev's traffic, prod runs them as described. */
export const environments = (): Environment[] => [
  // dev gets its own hostnames (checkout.example.com -> checkout.dev.example.com): both environments
  // share one cluster and Gateway, where two routes claiming one host would split its traffic.
  // Its canary's volume gate is sized from dev's own traffic: replace 40 req/s with what dev sees
  // (without a figure synth refuses the canary: the default gate would pause every dev release), or
  // deliver dev without a canary: adjust: (props) => ({ ...props, delivery: Delivery.rollingUpdate() }).
  // Connection settings are per environment too: every environment starts from the service's props
  // below, so a database written there (a Cloud SQL proxy sidecar's instance) reaches dev as well, and
  // dev's migration would run against prod's database. Give dev its own in its adjust, e.g.
  //   sidecars: props.sidecars?.map((s) => ({ ...s, args: s.args?.map((a) => a.replace(/^acme-prod:/, 'acme-dev:')) })),
  // (synth refuses one Cloud SQL instance in two environments unless addEstate's
  // sharedCloudSqlInstances gives the reason they share it).
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
 * deploys so it never applies itself. Apply \`dist/argocd/<env>/\` once; Argo CD follows Git.${
   adopt
     ? `
 * \`app\` must be a RollwiseApp (\`new RollwiseApp()\` from 'rollwise'): its synth() writes the reasons,
 * runbooks and checks, and \`rollwise synth\` refuses a plain App.`
     : ''
 }
 */
export function ${adopt ? 'addRollwise(app: App): void' : 'buildApp(outdir?: string): RollwiseApp'} {
${adopt ? '' : '  const app = new RollwiseApp({ outdir });\n'}  addEstate(app, {
    environments: environments(),
    services,
    perService: ({ environment, name, service }) => {
      const settings = environment.platform.argoCd;
      if (!settings) return;
      const chart = environment.addChart(app, \`\${name}-application\`, { outputPath: \`argocd/\${environment.name}/\${name}.k8s.yaml\` });
      new ArgoCdApplication(chart, \`\${name}-\${environment.name}\`, { service, settings });
    },
  });
${
  adopt
    ? ''
    : `  return app;
}

if (require.main === module) buildApp().synth();
`
}${adopt ? '}\n' : ''}`;
}

/**
 * The golden path's test for node --test. The services and environments it checks come from the
 * app, not from `rollwise init --service`, so that the test still holds once the user has replaced
 * the scaffold's service in main.ts: from `appModule` (main.ts compiled to lib/ by `npm test`),
 * else (an adopted app whose test script compiles nothing) from the files synth wrote.
 */
function testJs(appModule?: string): string {
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
${
  appModule
    ? `// the services and environments as the app declares them (${appModule.replace(
        /^\.\.\//,
        '',
      )}.js, compiled from main.ts)
const app = () => {
  const { environments, services } = require('${appModule}');
  return { environments: environments().map((e) => e.name), services: Object.keys(services) };
};`
    : `// the services and environments as synth wrote them: dist/<env>/<service>.k8s.yaml, beside dist/argocd/
const app = (out) => {
  const environments = fs.readdirSync(out, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'argocd').map((d) => d.name);
  const services = [...new Set(environments.flatMap((env) => fs.readdirSync(path.join(out, env)).filter((f) => f.endsWith('.k8s.yaml') && !f.endsWith('.catalog-info.yaml')).map((f) => f.slice(0, -'.k8s.yaml'.length))))];
  return { environments, services };
};`
}

test('the committed dist/ is what the code synthesizes (run \`npm run synth\` and commit)', () => {
  const r = rollwise('synth', '--check');
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
});

test('every environment gets its manifests, its runbook and its Argo CD Application', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'golden-path-'));
  try {
    const r = rollwise('synth', '--out', out);
    assert.strictEqual(r.status, 0, r.stderr);
    const { environments, services } = app(out);
    assert.ok(environments.length > 0 && services.length > 0, \`no environment or no service in \${JSON.stringify({ environments, services })}\`);
    for (const env of environments) {
      for (const service of services) {
        const manifest = fs.readFileSync(path.join(out, env, \`\${service}.k8s.yaml\`), 'utf8');
        assert.match(manifest, /rollwise.dev\\/reasons/);
        assert.ok(fs.existsSync(path.join(out, env, \`\${service}.runbook.md\`)), \`\${env}/\${service}.runbook.md\`);
        assert.ok(fs.existsSync(path.join(out, 'argocd', env, \`\${service}.k8s.yaml\`)), \`argocd/\${env}/\${service}.k8s.yaml\`);
      }
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

/** The adopted app's jest test; like testJs, it checks the services and environments rollwise.ts declares. */
function jestTestTs(): string {
  return `// rollwise's checks of this app, run by jest (\`npm test\`): the committed output is what the code
// gives, every environment is complete, and every manifest passes rollwise's composition checks.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { environments, services } from './rollwise';

const rollwise = (...args: string[]) => spawnSync(process.execPath, [require.resolve('rollwise/bin/rollwise.js'), ...args], { cwd: __dirname, encoding: 'utf8' });
// each synth compiles and runs the app (cdk8s.yaml's app command)
const SYNTH_TIMEOUT = 300000;

test('the committed dist/ is what the code synthesizes (run \`npm run synth\` and commit)', () => {
  const r = rollwise('synth', '--check');
  expect({ status: r.status, output: r.stdout + r.stderr }).toEqual({ status: 0, output: expect.stringContaining('is in sync') });
}, SYNTH_TIMEOUT);

test('every environment gets its manifests, its runbook and its Argo CD Application', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-'));
  try {
    const r = rollwise('synth', '--out', out);
    expect({ status: r.status, errors: r.stderr.split('\\n').filter((l) => !l.startsWith('warning: ') && l !== '') }).toEqual({ status: 0, errors: [] });
    // the services and environments rollwise.ts declares, so a renamed or added service is checked by its name
    for (const env of environments().map((e) => e.name)) {
      for (const service of Object.keys(services)) {
        expect(fs.readFileSync(path.join(out, env, \`\${service}.k8s.yaml\`), 'utf8')).toMatch(/rollwise.dev\\/reasons/);
        expect([\`\${env}/\${service}.runbook.md\`, fs.existsSync(path.join(out, env, \`\${service}.runbook.md\`))]).toEqual([\`\${env}/\${service}.runbook.md\`, true]);
        expect([\`argocd/\${env}/\${service}.k8s.yaml\`, fs.existsSync(path.join(out, 'argocd', env, \`\${service}.k8s.yaml\`))]).toEqual([\`argocd/\${env}/\${service}.k8s.yaml\`, true]);
      }
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}, SYNTH_TIMEOUT);

test('rollwise lint passes on the committed output', () => {
  const r = rollwise('lint', 'dist');
  expect({ status: r.status, output: r.stdout + r.stderr }).toEqual({ status: 0, output: expect.any(String) });
}, SYNTH_TIMEOUT);
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
