import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { Command, CommanderError } from 'commander';
import { RollwiseInputError } from '../errors';
import { explainManifest, formatExplained } from '../justify/explain';
import { synthesize } from '../synth/synth';

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
    .option('--check', 'compare with the committed output instead of writing; exit 1 on drift')
    .action((opts: { app?: string; out: string; check?: boolean }) => {
      const result = synthesize(loadBuild(appModule(opts.app)), { outdir: opts.out, check: opts.check });
      for (const w of result.warnings) err(`warning: ${w}\n`);
      if (opts.check) {
        if (result.drift.length > 0) {
          err(`${opts.out}/ is out of date with the code (${result.drift.length} file(s)):\n${result.drift.map((d) => `  ${d}`).join('\n')}\nRun \`npm run synth\` and commit the result.\n`);
          code = 1;
        } else {
          out(`${opts.out}/ is in sync with the code (${result.files.length} file(s)).\n`);
        }
      } else {
        out(`wrote ${result.files.length} file(s) to ${opts.out}/: ${result.files.join(', ')}\n`);
      }
    });

  program.command('explain')
    .description('print each decided value in manifest files with its reason')
    .argument('<files...>', 'manifest files (YAML, multi-document)')
    .action((files: string[]) => {
      for (const f of files) {
        const items = explainManifest(fs.readFileSync(f, 'utf8'));
        out(items.length ? `${formatExplained(items)}\n` : `${f}: no rollwise reasons found (no ${'rollwise.dev/reasons'} annotation)\n`);
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
