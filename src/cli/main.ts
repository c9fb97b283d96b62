import * as fs from 'fs';
import * as path from 'path';
import { Command, CommanderError } from 'commander';
import { formatInputError, RollwiseInputError } from '../errors';
import { explainedAt, explainManifest, formatExplained, isFieldPath } from '../justify/explain';
import { findApp, loadApp, synthEntry } from '../synth/load-app';
import { describeFiles } from '../synth/diff';
import { LintCliOptions, manifestFiles, runLintCli } from '../rules/run-lint';
import { runSimulate } from '../simulate/command';
import { runRehearse } from '../rehearse/command';
import { InputTooLargeError, readTextCapped } from '../read-limit';
import { MeasureCliOptions, runMeasureCli, runVerifyCli, VerifyCliOptions } from '../measure/command';
import { runDiff } from '../diff/command';
import { initProject } from './init';
import { platformYaml } from './platform';
import { fetchPinnedSchemas, SchemaFetchError } from '../schemas/pinned';
import { schemaDirCandidates } from '../schemas/locate';
import { findSchemaDir } from '../schemas/cluster-validator';

type Write = (text: string) => void;

/** rollwise's own version, from the package.json above this file (source or compiled). */
function ownVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

export async function main(
  argv: string[],
  out: Write = (t) => process.stdout.write(t),
  err: Write = (t) => process.stderr.write(t),
): Promise<number> {
  let code = 0;
  const program = new Command('rollwise')
    .description('Golden-path manifests for HTTP services, with the reason for every value')
    .version(ownVersion(), '-V, --version', 'print the rollwise version')
    .exitOverride()
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise init --service orders-api && npm install && npm run synth\n  rollwise explain ' +
        'dist/prod/checkout-api.k8s.yaml\n  rollwise lint dist/\n  rollwise schemas fetch\n\nDocs: ' +
        'node_modules/rollwise/docs/ (mechanisms.md, rules.md, cluster.md, simulate.md)\n',
    )
    .configureOutput({ writeOut: out, writeErr: err });

  program
    .command('synth')
    .description('synthesize the app into the output folder (atomic: a failure leaves it untouched)')
    .option(
      '--app <module>',
      'compiled app module: builds a RollwiseApp and calls synth(), or exports buildApp(outdir) (default: the app of ' +
        'cdk8s.yaml)',
    )
    .option('-o, --out <dir>', 'output folder (default: cdk8s.yaml output, else dist)')
    .option(
      '--check',
      'compare with the committed output instead of writing; exit 1 on drift and print the differing lines',
    )
    .option(
      '--validate-schemas',
      'validate every object against the pinned schemas before replacing the output (about 8 s more)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise synth                 # the app of cdk8s.yaml, into its output folder (default ' +
        'dist/)\n  rollwise synth --check         # CI: exit 1 when dist/ differs from the code\n  rollwise synth ' +
        '--app lib/main.js -o out\n',
    )
    .action((o: { app?: string; out?: string; check?: boolean; validateSchemas?: boolean }) => {
      const entry = findApp(o.app);
      const opts = { ...o, out: o.out ?? entry.output ?? 'dist' };
      const result = synthEntry(entry, { outdir: opts.out, check: opts.check, validateSchemas: opts.validateSchemas });
      for (const w of result.warnings) err(`warning: ${w}\n`);
      if (opts.check) {
        if (result.drift.length > 0) {
          err(
            `${opts.out}/ is out of date with the code (${result.drift.length} ` +
              `file(s)):\n${result.drift.map((d) => `  ${d}`).join('\n')}\n${
                result.diff ? `\n${result.diff}` : ''
              }Run ` +
              `\`npm run synth\` and commit the result.\n`,
          );
          code = 1;
        } else {
          out(`${opts.out}/ is in sync with the code (${result.files.length} file(s)).\n`);
        }
      } else {
        out(`wrote ${result.files.length} file(s) to ${opts.out}/: ${describeFiles(result.files)}\n`);
      }
    });

  program
    .command('explain')
    .description('print each decided value in manifest files with its reason (or only the values at a field path)')
    .argument(
      '<paths...>',
      'manifest files (YAML, multi-document) or folders (searched for *.yaml, *.yml); - reads standard input; then ' +
        'optionally a field path, e.g. readinessProbe.timeoutSeconds',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise explain dist/prod/checkout-api.k8s.yaml\n  rollwise explain ' +
        'dist/prod/checkout-api.k8s.yaml readinessProbe.timeoutSeconds\n  rollwise explain dist/\n  kubectl get ' +
        'rollout checkout-api -o yaml | rollwise explain -\n',
    )
    .action((args: string[]) => {
      const inputs: { name: string; text: () => string }[] = [];
      // A last argument that is no file but reads as a field path selects the values at it.
      const field =
        args.length > 1 && !fs.existsSync(args[args.length - 1]) && isFieldPath(args[args.length - 1])
          ? args[args.length - 1]
          : undefined;
      const paths = field === undefined ? args : args.slice(0, -1);
      for (const p of paths) {
        if (p === '-') inputs.push({ name: '<stdin>', text: () => readTextCapped(0, '<stdin>') });
        else if (!fs.existsSync(p))
          throw new RollwiseInputError(
            'explain path',
            p,
            'does not exist.',
            'give a manifest file, a folder of them (e.g. dist/), or - for standard input, then optionally a field ' +
              'path such as readinessProbe.timeoutSeconds.',
          );
        else if (fs.statSync(p).isDirectory()) {
          const files = manifestFiles(p).filter((f) => !f.endsWith('.json'));
          if (files.length === 0)
            throw new RollwiseInputError(
              'explain path',
              p,
              'is a folder without *.yaml or *.yml files.',
              'give the folder rollwise synth wrote (e.g. dist/) or a manifest file.',
            );
          for (const f of files) inputs.push({ name: f, text: () => readTextCapped(f) });
        } else inputs.push({ name: p, text: () => readTextCapped(p) });
      }
      let found = 0;
      const known = new Set<string>();
      for (const i of inputs) {
        const all = explainManifest(i.text());
        const items = field === undefined ? all : explainedAt(all, field);
        all.forEach((e) => known.add(e.path.replace(/^.*\.(?=[^.]+\.[^.]+$)/, '')));
        found += items.length;
        const head = inputs.length > 1 ? `== ${i.name}\n` : '';
        if (field !== undefined && items.length === 0) continue;
        out(
          items.length
            ? `${head}${formatExplained(items)}\n`
            : `${i.name}: no rollwise reasons found ` + `(no ${'rollwise.dev/reasons'} annotation)\n`,
        );
      }
      if (field !== undefined && found === 0) {
        const close = [...known]
          .filter((k) =>
            k
              .split('.')
              .some((part) => field.split('.').some((f) => part.replace(/\[\d+\]$/, '') === f.replace(/\[\d+\]$/, ''))),
          )
          .sort()
          .slice(0, 8);
        throw new RollwiseInputError(
          'explain field path',
          field,
          `no decided value in ${paths.join(', ')} is at this path or ends with it.`,
          close.length
            ? `use one of the paths explain prints, e.g. ${close.join(', ')}.`
            : 'run rollwise explain on the file ' + 'without a field path to see every decided path.',
        );
      }
    });

  const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
  program
    .command('lint')
    .description(
      'check manifests for the probe, rollout and proxy compositions that took services down ' + '(docs/rules.md)',
    )
    .argument(
      '[paths...]',
      'manifest files or folders (*.yaml, *.yml, *.json, searched recursively); - reads standard input',
    )
    .option('-f, --format <format>', 'text, json or sarif', 'text')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above: error, warning, info or none', 'error')
    .option('--explain-skips', 'list the rules skipped for lack of a fact, and how to declare it')
    .option('--p99 <name=seconds>', "readiness handler's p99 under load for a workload (repeatable)", collect)
    .option(
      '--keepalive <name=seconds|none>',
      "app server's idle keep-alive for a Service or workload (repeatable)",
      collect,
    )
    .option('--peak-rps <name=rps>', 'peak requests per second of a workload (repeatable)', collect)
    .option('--saturation-rps <name=rps>', 'per-replica saturation rate of a workload (repeatable)', collect)
    .option(
      '--calls-dependency <name>',
      'declare that the readiness handler of a workload calls a dependency (repeatable)',
      collect,
    )
    .option(
      '--exclude <glob>',
      'leave files or folders out of folder scans, gitignore-like (repeatable; also read from .rollwiseignore)',
      collect,
    )
    .option(
      '--no-simulate',
      'do not run the simulated drain at peak for workloads that declare peak-rps and saturation-rps',
    )
    .option(
      '--no-kustomize',
      'lint the files of a kustomization one by one instead of as kustomize (or kubectl kustomize) renders them',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise lint dist/\n  rollwise lint legacy/ --p99 orders=0.4 --keepalive orders=5\n  rollwise ' +
        'lint dist/ --format sarif > rollwise.sarif\n  kubectl get deploy,svc,pdb -A -o yaml | rollwise lint -\n',
    )
    .action((paths: string[], opts: LintCliOptions) => {
      code = runLintCli(paths, opts, out, err);
    });

  program
    .command('simulate')
    .description("simulate a fleet's readiness control loop under a drain or a peak (docs/simulate.md)")
    .argument('<scenario>', 'scenario file (YAML)')
    .option('--svg <file>', 'write a chart of ready endpoints, load per ready replica and error ratio')
    .option('--json', 'print the summary and time series as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  rollwise simulate node_modules/rollwise/examples/scenarios/a-incident-throttled-drain.yaml ' +
        '--svg drain.svg\n',
    )
    .action((scenario: string, o: { svg?: string; json?: boolean }) => {
      code = runSimulate({ scenario, svg: o.svg, json: o.json, write: out });
    });

  const num = (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0)
      throw new RollwiseInputError(
        'rehearse option',
        v,
        'is not a non-negative number.',
        'pass a number of requests per second or seconds.',
      );
    return n;
  };
  program
    .command('rehearse')
    .description(
      "replay healthy and bad releases through a Rollout's canary and its analysis on a real Prometheus " +
        '(docs/rehearse.md)',
    )
    .argument('<files...>', 'manifest files holding the Rollout, its AnalysisTemplates and HTTPRoute')
    .option('--json', "print every release's outcome, events and measurements as JSON")
    .option('--svg <file>', 'write the timeline of every release as an SVG')
    .option('--release <id>', 'replay only this release of the catalogue (repeatable)', collect)
    .option('--peak-rps <rps>', 'peak traffic when the Rollout has no rollwise.dev/peak-rps annotation', num)
    .option(
      '--release-rps <rps>',
      'traffic at the time releases usually go out (default: release-rps annotation, else the peak)',
      num,
    )
    .option('--low-rps <rps>', 'quiet-hours traffic for the low-traffic release (default 5 % of the peak)', num)
    .option('--scrape-interval <seconds>', 'scrape interval of the exporters (default 30)', num)
    .action(
      async (
        files: string[],
        o: {
          json?: boolean;
          svg?: string;
          release?: string[];
          peakRps?: number;
          releaseRps?: number;
          lowRps?: number;
          scrapeInterval?: number;
        },
      ) => {
        code = await runRehearse({
          files,
          json: o.json,
          svg: o.svg,
          releases: o.release,
          peakRps: o.peakRps,
          releaseRps: o.releaseRps,
          lowRps: o.lowRps,
          scrapeSeconds: o.scrapeInterval,
          write: out,
          writeErr: err,
        });
      },
    );

  // measure / verify (docs/measure.md): Prometheus credentials come from the environment only.
  const prometheusOptions = (cmd: Command) =>
    cmd
      .option(
        '--app <module>',
        "app to read the service's namespace, Prometheus and budget from (default: cdk8s.yaml's, for what the flags " +
          'leave out)',
      )
      .option(
        '--prometheus <url>',
        "Prometheus base URL (default: $ROLLWISE_PROMETHEUS_URL, else the app's platform.prometheusAddress)",
      )
      .option(
        '-n, --namespace <ns>',
        "namespace the service runs in (default: the app's, when it has one HttpService of that name)",
      )
      .option('--container <name>', 'container name (default: app, the container rollwise renders)')
      .option(
        '--endpoints <source>',
        'ready endpoints from endpointslices (kube-state-metrics\' default) or endpoints (needs "endpoints" in its ' +
          '--resources)',
        'endpointslices',
      )
      .option(
        '--workload <kind>',
        "rollout or deployment: where desired replicas come from (default: the app's delivery, else rollout)",
      )
      .option(
        '--user <name>',
        'basic-auth user; the password is read from $ROLLWISE_PROMETHEUS_PASSWORD (a token from ' +
          '$ROLLWISE_PROMETHEUS_TOKEN)',
      )
      .option('--json', 'print JSON');
  prometheusOptions(
    program
      .command('measure')
      .description(
        "measure a service's inputs at its busiest hour from the cluster's Prometheus and write " +
          'measurements/<service>.json',
      )
      .argument('<service>', 'service name')
      .option('--window <duration>', 'window length, e.g. 7d, 36h', '7d')
      .option(
        '--app-histogram <selector>',
        "the app's own histogram for the readiness path, e.g. 'http_request_duration_seconds{handler=\"/healthz\"}'",
      )
      .option('--end <time>', 'end of the window (ISO 8601, unix time or now)', 'now')
      .option('-o, --out <file>', 'measurements file (default: measurements/<service>.json)'),
  ).action(async (service: string, o: MeasureCliOptions) => {
    code = await runMeasureCli(service, o, out, err, () => loadApp(o.app));
  });
  prometheusOptions(
    program
      .command('verify')
      .description('verify a change over a window that includes a peak: exit 0 pass, 1 fail, 2 refused or error')
      .argument('<service>', 'service name')
      .requiredOption('--since <time>', 'start of the window (ISO 8601, unix time, or 24h / 7d back from now)')
      .option('--until <time>', 'end of the window', 'now')
      .option(
        '--max-unavailable <pods>',
        "pods that may be not Ready at once (default: the app's PodDisruptionBudget, else 1)",
      )
      .option('--throttle-threshold <ratio>', 'highest CFS throttled ratio at peak', '0.25')
      .option('--slo <ratio>', 'highest 5xx ratio of the route', '0.01')
      .option(
        '--listener-stopped <pod@time>',
        "check that the probe can still fail: this pod's listener was stopped at that time",
      )
      .option(
        '--leave-within <seconds>',
        "the window the probe timing implies (default: from the app's readiness probe)",
      ),
  ).action(async (service: string, o: VerifyCliOptions) => {
    code = await runVerifyCli(service, o, out, err, () => loadApp(o.app));
  });

  program
    .command('diff')
    .description('what a change to the committed output changes, why, and what it risks (docs/diff.md)')
    .argument(
      '[sides...]',
      'old and new: output folders or Git revisions of --dir (default: the merge base with the target branch, and ' +
        'the working tree)',
    )
    .option('--dir <dir>', 'the output folder in the repository, for revisions and the working tree', 'dist')
    .option('-f, --format <format>', 'text, json or markdown (for a pull-request comment)', 'text')
    .option(
      '--fail-on <list>',
      'exit 1 when the change introduces any of: error, warning, info (a lint finding at or above), override (a new ' +
        'or changed override); none never fails',
      'error',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise diff                          # merge base with origin/main vs the working ' +
        'tree\n  rollwise diff origin/main HEAD -f markdown > diff.md\n  rollwise diff old-dist/ dist/ --fail-on ' +
        'error,override\n',
    )
    .action((sides: string[], o: { dir: string; format: string; failOn: string }) => {
      code = runDiff({ sides, dir: o.dir, format: o.format, failOn: o.failOn, write: out, writeError: err });
    });

  program
    .command('init')
    .description(
      'scaffold a golden-path repository, or add rollwise to the cdk8s app in the folder (e.g. from cdk8s init ' +
        'typescript-app); idempotent',
    )
    .argument('[dir]', 'target folder', '.')
    .option('--service <name>', "the first service's name (default: the folder's name)")
    .option(
      '--force',
      'in a new repository: overwrite files that exist with other content (package.json is merged, never replaced)',
    )
    .option(
      '--dependency <spec>',
      'the rollwise dependency for package.json (default: as this rollwise was installed: its tarball path, Git URL ' +
        'or registry range)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise init --service orders-api   # in a new, empty folder\n  rollwise init . --service ' +
        'orders-api # in a cdk8s app: adds platform.ts and rollwise.ts beside its main.ts\n',
    )
    .action((dir: string, o: { service?: string; force?: boolean; dependency?: string }) => {
      const r = initProject(dir, {
        service: o.service,
        force: o.force,
        version: ownVersion(),
        dependency: o.dependency,
      });
      const list = (label: string, files: readonly string[]) => (files.length ? `${label}: ${files.join(', ')}\n` : '');
      if (r.mode === 'adopt')
        out(`the folder holds a cdk8s app: rollwise joined it (its cdk8s.yaml, tsconfig.json and scripts are kept)\n`);
      out(`${list('created', r.created)}${list('updated', r.updated)}${list('unchanged', r.unchanged)}`);
      for (const n of r.notes) out(`note: ${n}\n`);
      out(
        r.created.length + r.updated.length === 0
          ? 'nothing to do: the folder already has the golden path.\n'
          : `next: ${path.resolve(dir) === process.cwd() ? '' : `cd ${dir} && `}npm ` +
              `install && npm run synth && npm test\n`,
      );
    });

  const schemas = program
    .command('schemas')
    .description('the pinned Kubernetes definitions and CRDs synth and lint validate against (README, Schemas)');
  schemas
    .command('fetch')
    .description(
      'download the pinned schemas into .schemas/ of this project, where synth and lint look (needs network, or ' +
        '--from)',
    )
    .option('--dir <dir>', 'where to write them (crds/ and schemas/)', '.schemas')
    .option(
      '--from <folder|url>',
      'copy them from a folder or mirror URL with the same layout (offline: a .schemas/ fetched elsewhere) instead ' +
        'of the upstream URLs',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  npx rollwise schemas fetch                     # into ./.schemas (add it to .gitignore)\n  npx ' +
        'rollwise schemas fetch --from ../other/.schemas\n',
    )
    .action(async (o: { dir: string; from?: string }) => {
      try {
        const files = await fetchPinnedSchemas(path.resolve(o.dir), {
          from: o.from,
          onFile: (f) => out(`fetched ${f}\n`),
        });
        out(
          `${files.length} pinned schema files in ${o.dir}/; rollwise synth and lint find them there when run in ` +
            `this folder (elsewhere: ROLLWISE_SCHEMA_DIR=${path.resolve(o.dir)})\n`,
        );
      } catch (e) {
        if (!(e instanceof SchemaFetchError)) throw e;
        err(`rollwise schemas fetch: ${e.message}\n`);
        code = 1;
      }
    });
  schemas
    .command('where')
    .description('print where synth and lint look for the pinned schemas, and which folder they use')
    .action(() => {
      const found = findSchemaDir();
      out(
        'looked in, in ' +
          `order:\n${schemaDirCandidates()
            .map((d) => `  ${d}${d === found ? '  <- used' : ''}`)
            .join('\n')}\n`,
      );
      if (found === undefined) {
        out('none has them: run `npx rollwise schemas fetch` (needs network) or set ROLLWISE_SCHEMA_DIR.\n');
        code = 1;
      }
    });

  program
    .command('platform')
    .description('print the cluster-side manifests a platform team applies once (docs/cluster.md)')
    .option('-o, --out <file>', 'write them to a file instead of standard output')
    .option('--rollouts-namespace <ns>', 'namespace of the Argo Rollouts controller', 'argo-rollouts')
    .option('--envoy-namespace <ns>', "namespace of Envoy Gateway's proxies", 'envoy-gateway-system')
    .option('--arch <arch>', 'node architecture of the plugin binary: amd64 or arm64', 'amd64')
    .option('--monitor-label <key=value>', 'label your Prometheus selects PodMonitors by (repeatable)', collect)
    .option(
      '--plugin-sha256 <hex>',
      'SHA-256 of the plugin binary, checked by the controller after the download (curl -sL <location> | sha256sum)',
    )
    .option(
      '--namespace <ns>',
      'also print this namespace with its Pod Security labels (repeatable; for NamespacePolicy.existing())',
      collect,
    )
    .option(
      '--pod-security <level>',
      'Pod Security level the namespaces enforce: restricted, baseline or privileged',
      'restricted',
    )
    .option(
      '--kubernetes-version <version>',
      "the version whose Pod Security definition the namespaces enforce: 1.28 or 1.33, your cluster's (default: " +
        '1.28, with a warning)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rollwise platform --monitor-label release=kube-prometheus-stack --plugin-sha256 <hex> | ' +
        'kubectl apply -f -\n  rollwise platform --namespace shop --namespace shop-dev\n',
    )
    .action(
      (o: {
        out?: string;
        rolloutsNamespace: string;
        envoyNamespace: string;
        arch: string;
        monitorLabel?: string[];
        pluginSha256?: string;
        namespace?: string[];
        podSecurity: string;
        kubernetesVersion?: string;
      }) => {
        const { yaml: text, warnings } = platformYaml(o);
        for (const w of warnings) err(`warning: ${w}\n`);
        if (o.out) {
          const tmp = `${o.out}.tmp-${process.pid}`;
          fs.writeFileSync(tmp, text);
          fs.renameSync(tmp, o.out);
          out(`wrote the cluster prerequisites to ${o.out}\n`);
        } else {
          out(text);
        }
      },
    );

  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof InputTooLargeError) {
      err(`rollwise: ${e.message}\n`);
      return 2;
    }
    if (e instanceof RollwiseInputError) {
      err(formatInputError(e));
      return 2;
    }
    throw e;
  }
  return code;
}
