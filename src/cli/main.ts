import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdk8s';
import { Command, CommanderError } from 'commander';
import { RollwiseInputError } from '../errors';
import { explainManifest, formatExplained } from '../justify/explain';
import { synthesize } from '../synth/synth';
import { describeFiles } from '../synth/diff';
import { LintCliOptions, runLintCli } from '../rules/run-lint';
import { runSimulate } from '../simulate/command';
import { runRehearse } from '../rehearse/command';
import { InputTooLargeError, readTextCapped } from '../read-limit';
import { MeasureCliOptions, runMeasureCli, runVerifyCli, VerifyCliOptions } from '../measure/command';
import { runDiff } from '../diff/command';

type Write = (text: string) => void;

/** The app module: `--app`, else the file `node <file>` in cdk8s.yaml's `app:` line. */
function appModule(option: string | undefined): string {
  if (option) return path.resolve(option);
  const config = fs.existsSync('cdk8s.yaml') ? fs.readFileSync('cdk8s.yaml', 'utf8') : '';
  const m = /^app:\s*node\s+(\S+)\s*$/m.exec(config);
  if (!m) throw new Error('no --app given and cdk8s.yaml has no "app: node <file>" line: pass --app <compiled module exporting buildApp(outdir)>');
  return path.resolve(m[1]);
}

function loadBuild(modulePath: string): (outdir: string) => App {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(modulePath) as { buildApp?: (outdir: string) => App };
  if (typeof mod.buildApp !== 'function') throw new Error(`${modulePath} does not export buildApp(outdir): App`);
  return mod.buildApp;
}

export async function main(argv: string[], out: Write = (t) => process.stdout.write(t), err: Write = (t) => process.stderr.write(t)): Promise<number> {
  let code = 0;
  const program = new Command('rollwise')
    .description('Golden-path manifests for HTTP services, with the reason for every value')
    .exitOverride()
    .configureOutput({ writeOut: out, writeErr: err });

  program.command('synth')
    .description('synthesize the app into the output folder (atomic: a failure leaves it untouched)')
    .option('--app <module>', 'compiled module exporting buildApp(outdir) (default: from cdk8s.yaml)')
    .option('-o, --out <dir>', 'output folder', 'dist')
    .option('--check', 'compare with the committed output instead of writing; exit 1 on drift and print the differing lines')
    .option('--validate-schemas', 'validate every object against the pinned schemas before replacing the output (about 8 s more)')
    .action((opts: { app?: string; out: string; check?: boolean; validateSchemas?: boolean }) => {
      const result = synthesize(loadBuild(appModule(opts.app)), { outdir: opts.out, check: opts.check, validateSchemas: opts.validateSchemas });
      for (const w of result.warnings) err(`warning: ${w}\n`);
      if (opts.check) {
        if (result.drift.length > 0) {
          err(`${opts.out}/ is out of date with the code (${result.drift.length} file(s)):\n${result.drift.map((d) => `  ${d}`).join('\n')}\n${result.diff ? `\n${result.diff}` : ''}Run \`npm run synth\` and commit the result.\n`);
          code = 1;
        } else {
          out(`${opts.out}/ is in sync with the code (${result.files.length} file(s)).\n`);
        }
      } else {
        out(`wrote ${result.files.length} file(s) to ${opts.out}/: ${describeFiles(result.files)}\n`);
      }
    });

  program.command('explain')
    .description('print each decided value in manifest files with its reason')
    .argument('<files...>', 'manifest files (YAML, multi-document)')
    .action((files: string[]) => {
      for (const f of files) {
        const items = explainManifest(readTextCapped(f));
        out(items.length ? `${formatExplained(items)}\n` : `${f}: no rollwise reasons found (no ${'rollwise.dev/reasons'} annotation)\n`);
      }
    });

  const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
  program.command('lint')
    .description('check manifests for the probe, rollout and proxy compositions that took services down (docs/rules.md)')
    .argument('[paths...]', 'manifest files or folders (*.yaml, *.yml, *.json, searched recursively); - reads standard input')
    .option('-f, --format <format>', 'text, json or sarif', 'text')
    .option('--fail-on <severity>', 'exit 1 when a finding is at or above: error, warning, info or none', 'error')
    .option('--explain-skips', 'list the rules skipped for lack of a fact, and how to declare it')
    .option('--p99 <name=seconds>', "readiness handler's p99 under load for a workload (repeatable)", collect)
    .option('--keepalive <name=seconds|none>', "app server's idle keep-alive for a Service or workload (repeatable)", collect)
    .option('--peak-rps <name=rps>', 'peak requests per second of a workload (repeatable)', collect)
    .option('--saturation-rps <name=rps>', 'per-replica saturation rate of a workload (repeatable)', collect)
    .option('--calls-dependency <name>', 'declare that the readiness handler of a workload calls a dependency (repeatable)', collect)
    .option('--exclude <glob>', 'leave files or folders out of folder scans, gitignore-like (repeatable; also read from .rollwiseignore)', collect)
    .option('--no-simulate', 'do not run the simulated drain at peak for workloads that declare peak-rps and saturation-rps')
    .action((paths: string[], opts: LintCliOptions) => { code = runLintCli(paths, opts, out, err); });

  program.command('simulate')
    .description('simulate a fleet\'s readiness control loop under a drain or a peak (docs/simulate.md)')
    .argument('<scenario>', 'scenario file (YAML)')
    .option('--svg <file>', 'write a chart of ready endpoints, load per ready replica and error ratio')
    .option('--json', 'print the summary and time series as JSON')
    .action((scenario: string, o: { svg?: string; json?: boolean }) => { code = runSimulate({ scenario, svg: o.svg, json: o.json, write: out }); });

  const num = (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new RollwiseInputError('rehearse option', v, 'is not a non-negative number.', 'pass a number of requests per second or seconds.');
    return n;
  };
  program.command('rehearse')
    .description('replay healthy and bad releases through a Rollout\'s canary and its analysis on a real Prometheus (docs/rehearse.md)')
    .argument('<files...>', 'manifest files holding the Rollout, its AnalysisTemplates and HTTPRoute')
    .option('--json', 'print every release\'s outcome, events and measurements as JSON')
    .option('--svg <file>', 'write the timeline of every release as an SVG')
    .option('--release <id>', 'replay only this release of the catalogue (repeatable)', collect)
    .option('--peak-rps <rps>', 'peak traffic when the Rollout has no rollwise.dev/peak-rps annotation', num)
    .option('--release-rps <rps>', 'traffic at the time releases usually go out (default: release-rps annotation, else the peak)', num)
    .option('--low-rps <rps>', 'quiet-hours traffic for the low-traffic release (default 5 % of the peak)', num)
    .option('--scrape-interval <seconds>', 'scrape interval of the exporters (default 30)', num)
    .action(async (files: string[], o: { json?: boolean; svg?: string; release?: string[]; peakRps?: number; releaseRps?: number; lowRps?: number; scrapeInterval?: number }) => {
      code = await runRehearse({ files, json: o.json, svg: o.svg, releases: o.release, peakRps: o.peakRps, releaseRps: o.releaseRps, lowRps: o.lowRps, scrapeSeconds: o.scrapeInterval, write: out, writeErr: err });
    });

  // measure / verify (docs/measure.md): Prometheus credentials come from the environment only.
  const prometheusOptions = (cmd: Command) => cmd
    .option('--app <module>', 'app to read the service\'s namespace, Prometheus and budget from (default: cdk8s.yaml\'s, for what the flags leave out)')
    .option('--prometheus <url>', 'Prometheus base URL (default: $ROLLWISE_PROMETHEUS_URL, else the app\'s platform.prometheusAddress)')
    .option('-n, --namespace <ns>', 'namespace the service runs in (default: the app\'s, when it has one HttpService of that name)')
    .option('--container <name>', 'container name (default: the service name)')
    .option('--workload <kind>', 'rollout or deployment: where desired replicas come from (default: the app\'s delivery, else rollout)')
    .option('--user <name>', 'basic-auth user; the password is read from $ROLLWISE_PROMETHEUS_PASSWORD (a token from $ROLLWISE_PROMETHEUS_TOKEN)')
    .option('--json', 'print JSON');
  prometheusOptions(program.command('measure')
    .description('measure a service\'s inputs at its busiest hour from the cluster\'s Prometheus and write measurements/<service>.json')
    .argument('<service>', 'service name')
    .option('--window <duration>', 'window length, e.g. 7d, 36h', '7d')
    .option('--app-histogram <selector>', 'the app\'s own histogram for the readiness path, e.g. \'http_request_duration_seconds{handler="/healthz"}\'')
    .option('--end <time>', 'end of the window (ISO 8601, unix time or now)', 'now')
    .option('-o, --out <file>', 'measurements file (default: measurements/<service>.json)'))
    .action(async (service: string, o: MeasureCliOptions) => { code = await runMeasureCli(service, o, out, err, () => loadBuild(appModule(o.app))(os.tmpdir())); });
  prometheusOptions(program.command('verify')
    .description('verify a change over a window that includes a peak: exit 0 pass, 1 fail, 2 refused or error')
    .argument('<service>', 'service name')
    .requiredOption('--since <time>', 'start of the window (ISO 8601, unix time, or 24h / 7d back from now)')
    .option('--until <time>', 'end of the window', 'now')
    .option('--max-unavailable <pods>', 'pods that may be not Ready at once (default: the app\'s PodDisruptionBudget, else 1)')
    .option('--throttle-threshold <ratio>', 'highest CFS throttled ratio at peak', '0.25')
    .option('--slo <ratio>', 'highest 5xx ratio of the route', '0.01')
    .option('--listener-stopped <pod@time>', 'check that the probe can still fail: this pod\'s listener was stopped at that time')
    .option('--leave-within <seconds>', 'the window the probe timing implies (default: from the app\'s readiness probe)'))
    .action(async (service: string, o: VerifyCliOptions) => { code = await runVerifyCli(service, o, out, err, () => loadBuild(appModule(o.app))(os.tmpdir())); });


  program.command('diff')
    .description('what a change to the committed output changes, why, and what it risks (docs/diff.md)')
    .argument('[sides...]', 'old and new: output folders or Git revisions of --dir (default: the merge base with the target branch, and the working tree)')
    .option('--dir <dir>', 'the output folder in the repository, for revisions and the working tree', 'dist')
    .option('-f, --format <format>', 'text, json or markdown (for a pull-request comment)', 'text')
    .option('--fail-on <list>', 'exit 1 when the change introduces any of: error, warning, info (a lint finding at or above), override (a new or changed override); none never fails', 'error')
    .addHelpText('after', '\nExamples:\n  rollwise diff                          # merge base with origin/main vs the working tree\n  rollwise diff origin/main HEAD -f markdown > diff.md\n  rollwise diff old-dist/ dist/ --fail-on error,override\n')
    .action((sides: string[], o: { dir: string; format: string; failOn: string }) => {
      code = runDiff({ sides, dir: o.dir, format: o.format, failOn: o.failOn, write: out, writeError: err });
    });

  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof InputTooLargeError) {
      err(`rollwise: ${e.message}\n`);
      return 2;
    }
    if (e instanceof RollwiseInputError) {
      err(`rollwise: invalid input${e.service ? ` in service ${e.service} (${e.path})` : ''}\n  ${e.input} = ${e.value}\n  why: ${e.why}\n  fix: ${e.fix}\n`);
      return 2;
    }
    throw e;
  }
  return code;
}
