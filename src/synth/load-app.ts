import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdk8s';
import { parse as parseYaml } from 'yaml';
import { RollwiseInputError } from '../errors';
import { lintApp, RollwiseApp, SYNTH_REQUEST_ENV, SynthAnswer } from './rollwise-app';
import { synthesize, SynthResult } from './synth';

/** Where `rollwise synth` finds the app, the way `cdk8s synth` does. */
export interface AppEntry {
  /** The shell command that runs the app (cdk8s.yaml `app:`), when it is not `node <file>`. */
  readonly command?: string;
  /** The module to load in-process (`--app <module>`, or cdk8s.yaml `app: node <file>`). */
  readonly module?: string;
  /** cdk8s.yaml `output:`, when given. */
  readonly output?: string;
  /** The folder the command runs in (cdk8s.yaml's folder). */
  readonly cwd: string;
}

/**
 * The app of `--app <module>`, else of `cdk8s.yaml` in `cwd` (its `app:` command and `output:`).
 */
export function findApp(option: string | undefined, cwd: string = process.cwd()): AppEntry {
  const configFile = path.join(cwd, 'cdk8s.yaml');
  const config = fs.existsSync(configFile)
    ? ((parseYaml(fs.readFileSync(configFile, 'utf8')) as { app?: unknown; output?: unknown } | null) ?? {})
    : undefined;
  const output = typeof config?.output === 'string' ? config.output : undefined;
  if (option) return { module: path.resolve(cwd, option), output, cwd };
  if (!config) {
    throw new RollwiseInputError(
      'cdk8s.yaml',
      `(none in ${cwd})`,
      'rollwise synth runs the app that cdk8s.yaml names, as cdk8s synth does, and there is no cdk8s.yaml here.',
      "run it in the app's folder, pass --app <compiled module>, or scaffold one with `rollwise init`.",
    );
  }
  if (typeof config.app !== 'string' || config.app.trim() === '') {
    throw new RollwiseInputError(
      'cdk8s.yaml app',
      String(config.app),
      'it names no command that runs the app.',
      'set `app: node main.js` (or e.g. `app: npx ts-node main.ts`).',
    );
  }
  const m = /^node\s+(\S+\.c?js)\s*$/.exec(config.app.trim());
  return m ? { module: path.resolve(cwd, m[1]), output, cwd } : { command: config.app, output, cwd };
}

/**
 * Synthesizes the app of `entry` into `outdir`. A module is loaded in-process: it may export
 * `buildApp(outdir): App`, or build a RollwiseApp and call `app.synth()` (captured: nothing is
 * written while loading; a plain App's synth() writes into a scratch folder that is removed).
 * A command is run in a shell like `cdk8s synth` runs it; its RollwiseApp answers the request.
 */
export function synthEntry(
  entry: AppEntry,
  opts: { readonly outdir: string; readonly check?: boolean; readonly validateSchemas?: boolean },
): SynthResult {
  const outdir = path.resolve(opts.outdir);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-app-'));
  try {
    if (entry.module) return synthModule(entry.module, outdir, scratch, opts);
    return synthCommand(entry.command ?? '', entry.cwd, outdir, scratch, opts);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function synthModule(
  modulePath: string,
  outdir: string,
  scratch: string,
  { check, validateSchemas }: { readonly check?: boolean; readonly validateSchemas?: boolean },
): SynthResult {
  const previous = process.env.CDK8S_OUTDIR;
  process.env.CDK8S_OUTDIR = scratch;
  let mod: { buildApp?: (outdir: string) => App } = {};
  let apps: RollwiseApp[];
  try {
    delete require.cache[require.resolve(modulePath)];
    apps = RollwiseApp.capture(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require(modulePath) as typeof mod;
    });
  } finally {
    if (previous === undefined) delete process.env.CDK8S_OUTDIR;
    else process.env.CDK8S_OUTDIR = previous;
  }
  if (typeof mod.buildApp === 'function') {
    const app = mod.buildApp(outdir);
    if (RollwiseApp.isRollwiseApp(app))
      return app.synthesize({ outdir, check, validateSchemas, onWarning: () => undefined });
    return synthesize(() => lintApp(app), { outdir, check, validateSchemas });
  }
  if (apps.length === 1) return apps[0].synthesize({ outdir, check, validateSchemas, onWarning: () => undefined });
  if (apps.length > 1)
    throw new RollwiseInputError(
      'app module',
      modulePath,
      `it synthesizes ${apps.length} RollwiseApps; rollwise synth writes one app into one folder.`,
      'call synth() on one RollwiseApp per module.',
    );
  throw notRollwise(modulePath, scratch);
}

function synthCommand(
  command: string,
  cwd: string,
  outdir: string,
  scratch: string,
  { check, validateSchemas }: { readonly check?: boolean; readonly validateSchemas?: boolean },
): SynthResult {
  const request = path.join(scratch, 'request.json');
  fs.writeFileSync(
    request,
    JSON.stringify({ outdir, check: check ?? false, validateSchemas: validateSchemas ?? false }),
  );
  const out = path.join(scratch, 'out');
  fs.mkdirSync(out);
  const run = spawnSync(command, {
    shell: true,
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CDK8S_OUTDIR: out, [SYNTH_REQUEST_ENV]: request },
  });
  const answerFile = `${request}.out`;
  if (!fs.existsSync(answerFile)) {
    if (run.status !== 0 || run.error)
      throw new Error(
        `the app command \`${command}\` failed (exit ${run.status ?? String(run.error)}):\n${run.stderr ?? ''}`,
      );
    throw notRollwise(`\`${command}\``, out);
  }
  const answer = JSON.parse(fs.readFileSync(answerFile, 'utf8')) as SynthAnswer;
  if ('error' in answer) {
    const e = answer.error;
    if (e.input !== undefined && e.why !== undefined && e.fix !== undefined) {
      const err = new RollwiseInputError(e.input, e.value ?? '', e.why, e.fix);
      if (e.service !== undefined) Object.assign(err, { service: e.service, path: e.path, message: e.message });
      throw err;
    }
    throw new Error(e.message);
  }
  return answer.result;
}

function notRollwise(what: string, scratch: string): RollwiseInputError {
  const wrote = fs.readdirSync(scratch).length > 0;
  return new RollwiseInputError(
    'app',
    what,
    wrote
      ? 'it synthesizes a plain cdk8s App, whose synth() writes no reasons, runbooks or warnings (its output was ' +
          'discarded).'
      : 'it exports no buildApp(outdir) and calls synth() on no RollwiseApp.',
    'build the app with `new RollwiseApp()` from rollwise and call `app.synth()`, or export `buildApp(outdir): App`.',
  );
}

/**
 * The app's construct tree, for commands that read settings from it (`measure`, `verify`) without
 * writing anything: a module's `buildApp(outdir)`, or the RollwiseApp it synthesizes at load
 * (captured, so nothing is written). A shell command cannot hand over its tree: name the compiled
 * module with --app instead.
 */
export function loadApp(option: string | undefined, cwd: string = process.cwd()): App {
  const entry = findApp(option, cwd);
  if (!entry.module) {
    throw new RollwiseInputError(
      'cdk8s.yaml app',
      entry.command ?? '',
      'it is a shell command, and a command cannot hand its construct tree to rollwise.',
      'pass --app <compiled module> (the file the command runs), or give the settings as flags.',
    );
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-app-'));
  const previous = process.env.CDK8S_OUTDIR;
  process.env.CDK8S_OUTDIR = scratch;
  try {
    let mod: { buildApp?: (outdir: string) => App } = {};
    delete require.cache[require.resolve(entry.module)];
    const apps = RollwiseApp.capture(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require(entry.module!) as typeof mod;
    });
    if (typeof mod.buildApp === 'function') return mod.buildApp(scratch);
    if (apps.length === 1) return apps[0];
    throw notRollwise(entry.module, scratch);
  } finally {
    if (previous === undefined) delete process.env.CDK8S_OUTDIR;
    else process.env.CDK8S_OUTDIR = previous;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
