import * as fs from 'fs';
import * as path from 'path';
import { Command, CommanderError } from 'commander';
import { RollwiseInputError } from '../errors';
import { explainManifest, formatExplained } from '../justify/explain';
import { findApp, synthEntry } from '../synth/load-app';
import { describeFiles } from '../synth/diff';
import { LintCliOptions, manifestFiles, runLintCli } from '../rules/run-lint';
import { runSimulate } from '../simulate/command';
import { initProject } from './init';
import { platformYaml } from './platform';

type Write = (text: string) => void;

/** rollwise's own version, from the package.json above this file (source or compiled). */
function ownVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

export async function main(argv: string[], out: Write = (t) => process.stdout.write(t), err: Write = (t) => process.stderr.write(t)): Promise<number> {
  let code = 0;
  const program = new Command('rollwise')
    .description('Golden-path manifests for HTTP services, with the reason for every value')
    .version(ownVersion(), '-V, --version', 'print the rollwise version')
    .exitOverride()
    .addHelpText('after', '\nExamples:\n  rollwise init --service orders-api && npm install && npm run synth\n  rollwise explain dist/prod/checkout-api.k8s.yaml\n  rollwise lint dist/\n\nDocs: node_modules/rollwise/docs/ (mechanisms.md, rules.md, cluster.md, simulate.md)\n')
    .configureOutput({ writeOut: out, writeErr: err });

  program.command('synth')
    .description('synthesize the app into the output folder (atomic: a failure leaves it untouched)')
    .option('--app <module>', 'compiled app module: builds a RollwiseApp and calls synth(), or exports buildApp(outdir) (default: the app of cdk8s.yaml)')
    .option('-o, --out <dir>', 'output folder (default: cdk8s.yaml output, else dist)')
    .option('--check', 'compare with the committed output instead of writing; exit 1 on drift and print the differing lines')
    .addHelpText('after', '\nExamples:\n  rollwise synth                 # the app of cdk8s.yaml, into its output folder (default dist/)\n  rollwise synth --check         # CI: exit 1 when dist/ differs from the code\n  rollwise synth --app lib/main.js -o out\n')
    .action((o: { app?: string; out?: string; check?: boolean }) => {
      const entry = findApp(o.app);
      const opts = { ...o, out: o.out ?? entry.output ?? 'dist' };
      const result = synthEntry(entry, { outdir: opts.out, check: opts.check });
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
    .argument('<paths...>', 'manifest files (YAML, multi-document) or folders (searched for *.yaml, *.yml); - reads standard input')
    .addHelpText('after', '\nExamples:\n  rollwise explain dist/prod/checkout-api.k8s.yaml\n  rollwise explain dist/\n  kubectl get rollout checkout-api -o yaml | rollwise explain -\n')
    .action((paths: string[]) => {
      const inputs: { name: string; text: () => string }[] = [];
      for (const p of paths) {
        if (p === '-') inputs.push({ name: '<stdin>', text: () => fs.readFileSync(0, 'utf8') });
        else if (!fs.existsSync(p)) throw new RollwiseInputError('explain path', p, 'does not exist.', 'give a manifest file, a folder of them (e.g. dist/), or - for standard input.');
        else if (fs.statSync(p).isDirectory()) {
          const files = manifestFiles(p).filter((f) => !f.endsWith('.json'));
          if (files.length === 0) throw new RollwiseInputError('explain path', p, 'is a folder without *.yaml or *.yml files.', 'give the folder rollwise synth wrote (e.g. dist/) or a manifest file.');
          for (const f of files) inputs.push({ name: f, text: () => fs.readFileSync(f, 'utf8') });
        } else inputs.push({ name: p, text: () => fs.readFileSync(p, 'utf8') });
      }
      for (const i of inputs) {
        const items = explainManifest(i.text());
        const head = inputs.length > 1 ? `== ${i.name}\n` : '';
        out(items.length ? `${head}${formatExplained(items)}\n` : `${i.name}: no rollwise reasons found (no ${'rollwise.dev/reasons'} annotation)\n`);
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
    .addHelpText('after', '\nExamples:\n  rollwise lint dist/\n  rollwise lint legacy/ --p99 orders=0.4 --keepalive orders=5\n  rollwise lint dist/ --format sarif > rollwise.sarif\n  kubectl get deploy,svc,pdb -A -o yaml | rollwise lint -\n')
    .action((paths: string[], opts: LintCliOptions) => { code = runLintCli(paths, opts, out, err); });

  program.command('simulate')
    .description('simulate a fleet\'s readiness control loop under a drain or a peak (docs/simulate.md)')
    .argument('<scenario>', 'scenario file (YAML)')
    .option('--svg <file>', 'write a chart of ready endpoints, load per ready replica and error ratio')
    .option('--json', 'print the summary and time series as JSON')
    .addHelpText('after', '\nExample:\n  rollwise simulate examples/scenarios/a-incident-throttled-drain.yaml --svg drain.svg\n')
    .action((scenario: string, o: { svg?: string; json?: boolean }) => { code = runSimulate({ scenario, svg: o.svg, json: o.json, write: out }); });

  program.command('init')
    .description('scaffold a golden-path repository (or add rollwise to the cdk8s app in the folder); idempotent')
    .argument('[dir]', 'target folder', '.')
    .option('--service <name>', "the first service's name (default: the folder's name)")
    .option('--force', 'overwrite files that exist with other content (package.json is merged, never replaced)')
    .addHelpText('after', '\nExamples:\n  rollwise init --service orders-api   # in a new, empty folder\n  rollwise init .                # add rollwise to the cdk8s app here (refuses to overwrite)\n')
    .action((dir: string, o: { service?: string; force?: boolean }) => {
      const r = initProject(dir, { service: o.service, force: o.force, version: ownVersion() });
      const list = (label: string, files: readonly string[]) => (files.length ? `${label}: ${files.join(', ')}\n` : '');
      out(`${list('created', r.created)}${list('updated', r.updated)}${list('unchanged', r.unchanged)}`);
      out(r.created.length + r.updated.length === 0 ? 'nothing to do: the folder already has the golden path.\n' : `next: cd ${dir} && npm install && npm run synth && npm test\n`);
    });

  program.command('platform')
    .description('print the cluster-side manifests a platform team applies once (docs/cluster.md)')
    .option('-o, --out <file>', 'write them to a file instead of standard output')
    .option('--rollouts-namespace <ns>', 'namespace of the Argo Rollouts controller', 'argo-rollouts')
    .option('--envoy-namespace <ns>', "namespace of Envoy Gateway's proxies", 'envoy-gateway-system')
    .option('--arch <arch>', 'node architecture of the plugin binary: amd64 or arm64', 'amd64')
    .option('--monitor-label <key=value>', 'label your Prometheus selects PodMonitors by (repeatable)', collect)
    .addHelpText('after', '\nExample:\n  rollwise platform --monitor-label release=kube-prometheus-stack | kubectl apply -f -\n')
    .action((o: { out?: string; rolloutsNamespace: string; envoyNamespace: string; arch: string; monitorLabel?: string[] }) => {
      const text = platformYaml(o);
      if (o.out) {
        const tmp = `${o.out}.tmp-${process.pid}`;
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, o.out);
        out(`wrote the cluster prerequisites to ${o.out}\n`);
      } else {
        out(text);
      }
    });

  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof RollwiseInputError) {
      err(`rollwise: invalid input\n  ${e.input} = ${e.value}\n  why: ${e.why}\n  fix: ${e.fix}\n`);
      return 2;
    }
    throw e;
  }
  return code;
}
