import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, App, AppProps, JsonPatch, YamlOutputType } from 'cdk8s';
import { renderingPatch } from '../invariants/final-objects';
import { absoluteCitations, checkDocsBaseUrl } from '../justify/citations';
import { assertSafe } from '../rules/synth-check';
import { registerRenderCheck } from './render-checks';
import { mapOutputFiles } from './output';
import { SynthLayout } from './layout';
import { synthesize, SynthResult } from './synth';
import { formatInputError, isInputError, RollwiseInputError } from '../errors';
import { checkKeys, keysOf } from '../decisions/props-keys';

export interface RollwiseAppProps extends AppProps {
  /**
   * Justification comments above the decided values.
   * @default true
   */
  readonly comments?: boolean;
  /**
   * Where each chart's file goes.
   * @default SynthLayout.declared()
   */
  readonly layout?: SynthLayout;
  /**
   * Lint every object of the app (rollwise's and any other ApiObject) with the rollwise rules
   * before writing; an error-level finding that no override or suppression accepts fails synth.
   * @default true
   */
  readonly lint?: boolean;
  /**
   * Where this version's rollwise docs are published (the folder holding mechanisms.md), e.g.
   * "https://github.com/acme/rollwise/blob/v0.1.0/docs/". Every citation in the output (reasons,
   * comments, runbooks) becomes an absolute link, `<docsBaseUrl>mechanisms.md#<section>`.
   * @default none: citations read e.g. "docs/mechanisms.md#keep-alive-race", the file the package
   * ships (node_modules/rollwise/docs/mechanisms.md)
   */
  readonly docsBaseUrl?: string;
  /**
   * Receives each synth warning (see addSynthWarning).
   * @default writes "warning: <text>" lines to standard error
   */
  readonly onWarning?: (text: string) => void;
}

/** Options of one `RollwiseApp.synthesize()` call. */
export interface RollwiseSynthOptions {
  /**
   * Where the output goes.
   * @default the app's outdir (`CDK8S_OUTDIR` under `cdk8s synth`, else "dist")
   */
  readonly outdir?: string;
  /**
   * Compare with the existing output instead of writing it.
   * @default false
   */
  readonly check?: boolean;
  /**
   * Validate every object against the pinned schemas before the output is replaced (about 8 s for
   * the validator to load and compile).
   * @default false
   */
  readonly validateSchemas?: boolean;
  /**
   * Receives each synth warning instead of the app's `onWarning`.
   * @default the app's onWarning
   */
  readonly onWarning?: (text: string) => void;
}

/**
 * Set by `rollwise synth` while it loads an app module in-process: a RollwiseApp whose synth() is
 * called then hands itself over instead of writing, so the CLI decides where and how it is written.
 */
const CAPTURE = Symbol.for('rollwise.synth.capture');
type Capture = (app: RollwiseApp) => void;
const IS_ROLLWISE_APP = Symbol.for('rollwise.RollwiseApp');

/**
 * A cdk8s App whose `synth()` is rollwise's renderer: justification comments, the runbooks and
 * other files constructs add, synth warnings, a lint of every object, and an atomic write (a
 * failure leaves the previous output untouched). `cdk8s synth` with a plain `main.ts` that calls
 * `app.synth()` therefore writes exactly what `rollwise synth` writes.
 */
export class RollwiseApp extends App {
  /** Whether `x` is a RollwiseApp (also across copies of the rollwise package). */
  public static isRollwiseApp(x: unknown): x is RollwiseApp {
    return typeof x === 'object' && x !== null && (x as { [IS_ROLLWISE_APP]?: boolean })[IS_ROLLWISE_APP] === true;
  }

  /**
   * Runs `load` (which loads an app module) and returns the RollwiseApps whose synth() it called.
   * Used by `rollwise synth`; nothing is written by those calls.
   */
  public static capture(load: () => void): RollwiseApp[] {
    const apps: RollwiseApp[] = [];
    const g = globalThis as { [CAPTURE]?: Capture };
    const previous = g[CAPTURE];
    g[CAPTURE] = (app) => apps.push(app);
    try {
      load();
    } finally {
      g[CAPTURE] = previous;
    }
    return apps;
  }

  private readonly options: RollwiseAppProps;

  constructor(props: RollwiseAppProps = {}) {
    super(checkAppProps(props));
    if (props.docsBaseUrl !== undefined) checkDocsBaseUrl(props.docsBaseUrl);
    this.options = props;
    Object.defineProperty(this, IS_ROLLWISE_APP, { value: true });
    // Inside a test runner (jest's global expect) the runner owns uncaught errors, and tests expect
    // synth() to throw; a program it spawns still reports them as rollwise does.
    if (typeof (globalThis as { expect?: { getState?: unknown } }).expect?.getState !== 'function')
      reportErrorsWithoutStack();
  }

  /** Writes the output into the app's outdir (what `cdk8s synth` calls through `app.synth()`). */
  public override synth(): void {
    const capture = (globalThis as { [CAPTURE]?: Capture })[CAPTURE];
    if (capture) {
      capture(this);
      return;
    }
    const request = process.env[SYNTH_REQUEST_ENV];
    if (request) {
      answerSynthRequest(this, request);
      return;
    }
    this.synthesize();
  }

  /**
   * Synthesizes the app with rollwise's renderer and returns what was written (or, under `check`,
   * how the existing output differs). Warnings go to `onWarning`.
   */
  public synthesize(opts: RollwiseSynthOptions = {}): SynthResult {
    const outdir = opts.outdir ?? this.outdir;
    const result = synthesize(
      () => {
        if (this.options.docsBaseUrl !== undefined) absoluteCitationsIn(this, this.options.docsBaseUrl);
        return (this.options.lint ?? true) ? lintApp(this) : this;
      },
      {
        outdir,
        check: opts.check,
        validateSchemas: opts.validateSchemas,
        comments: this.options.comments,
        layout: this.options.layout,
      },
    );
    if (!opts.check) normalizeMode(outdir);
    const warn = opts.onWarning ?? this.options.onWarning ?? ((t: string) => process.stderr.write(`warning: ${t}\n`));
    for (const w of result.warnings) warn(w);
    return result;
  }
}

const APP_KEYS = keysOf<RollwiseAppProps>()({
  outdir: true,
  outputFileExtension: true,
  yamlOutputType: true,
  recordConstructMetadata: true,
  resolvers: true,
  comments: true,
  layout: true,
  lint: true,
  docsBaseUrl: true,
  onWarning: true,
});

/**
 * The props as a JavaScript caller may pass them: known keys (a typo is refused with "did you
 * mean"), each of its type, so `comments: 'yes'` or `yamlOutputType: 'bogus'` is not silently read
 * as something else, and `resolvers: [{}]` or `layout: {}` fails here, not deep inside synth.
 */
function checkAppProps(props: RollwiseAppProps): RollwiseAppProps {
  if (props === undefined) return {};
  checkKeys('RollwiseApp', props, APP_KEYS, 'new RollwiseApp(props)');
  const bad = (key: string, value: unknown, why: string, fix: string): never => {
    throw new RollwiseInputError(
      `RollwiseApp.${key}`,
      typeof value === 'function'
        ? 'a function'
        : value === null
          ? null
          : typeof value === 'object'
            ? (JSON.stringify(value) ?? String(value))
            : value,
      why,
      fix,
    );
  };
  for (const k of ['comments', 'lint', 'recordConstructMetadata'] as const) {
    if (props[k] !== undefined && typeof props[k] !== 'boolean')
      bad(
        k,
        props[k],
        'must be true or false: any other value would be read as one of them without saying which.',
        `use ${k}: ${k === 'recordConstructMetadata' ? 'true' : 'false'}, or leave it out.`,
      );
  }
  if (props.onWarning !== undefined && typeof props.onWarning !== 'function') {
    bad(
      'onWarning',
      props.onWarning,
      'must be a function that receives each synth warning; the warnings would otherwise be lost.',
      'pass e.g. onWarning: (text) => console.error(text), or leave it out (warnings go to standard error).',
    );
  }
  // by shape, not instanceof: a SynthLayout of another copy of the package works the same
  if (props.layout !== undefined && typeof (props.layout as { fileFor?: unknown } | null)?.fileFor !== 'function') {
    bad(
      'layout',
      props.layout,
      'must be made by a SynthLayout factory (its fileFor maps each chart to its file).',
      'use SynthLayout.declared(), SynthLayout.flat() or SynthLayout.custom((chart, flat) => ...).',
    );
  }
  const outputTypes = Object.values(YamlOutputType).filter((v) => typeof v === 'number');
  if (props.yamlOutputType !== undefined && !outputTypes.includes(props.yamlOutputType)) {
    bad(
      'yamlOutputType',
      props.yamlOutputType,
      `is not a YamlOutputType (${Object.keys(YamlOutputType)
        .filter((k) => Number.isNaN(Number(k)))
        .join(', ')}); ` + 'cdk8s would write nothing for it.',
      'use e.g. yamlOutputType: YamlOutputType.FILE_PER_CHART (the default).',
    );
  }
  if (props.outdir !== undefined && (typeof props.outdir !== 'string' || props.outdir === '')) {
    bad('outdir', props.outdir, 'must be the path of the output folder.', 'use e.g. outdir: "dist" (the default).');
  }
  if (props.resolvers !== undefined) {
    if (!Array.isArray(props.resolvers))
      bad(
        'resolvers',
        props.resolvers,
        'must be a list of resolvers.',
        'pass resolvers: [new MyResolver()], or leave it out.',
      );
    props.resolvers.forEach((r, i) => {
      if (typeof (r as { resolve?: unknown } | null)?.resolve !== 'function') {
        bad(
          `resolvers[${i}]`,
          r,
          'is not a resolver: cdk8s calls resolve(context) on it for every value it writes.',
          'pass an object with a resolve(context) method (cdk8s IResolver), e.g. new LazyResolver().',
        );
      }
    });
  }
  return props;
}

/**
 * Lints every ApiObject of the app with the rollwise rules, whoever made it (as the validation
 * plugin lints every synthesized manifest); throws on a blocking finding. Returns the app.
 */
export function lintApp<A extends App>(app: A): A {
  if (linted.has(app)) return app;
  linted.add(app);
  // on the objects the synth pass renders and writes (render-checks.ts), every pass
  registerRenderCheck(app, (r) => {
    try {
      assertSafe(r.objects.map((o) => o.json));
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  });
  return app;
}

const linted = new WeakSet<App>();

/**
 * Makes every citation in the app's objects (annotations, alert texts, any string field) and extra
 * files absolute, with a JSON patch per string that cites (idempotent: an absolute citation no
 * longer matches).
 */
function absoluteCitationsIn(app: App, docsBaseUrl: string): void {
  const pointer = (parts: (string | number)[]) =>
    parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  const visit = (o: ApiObject, value: unknown, parts: (string | number)[]): void => {
    if (typeof value === 'string') {
      const absolute = absoluteCitations(value, docsBaseUrl);
      // Rendering, not an escape hatch: the invariants compare the user's patches only.
      if (absolute !== value) o.addJsonPatch(...renderingPatch(JsonPatch.replace(pointer(parts), absolute)));
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => visit(o, v, [...parts, i]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) visit(o, v, [...parts, k]);
    }
  };
  for (const c of app.node.findAll()) if (c instanceof ApiObject) visit(c, c.toJson(), []);
  mapOutputFiles(app, (content) => absoluteCitations(content, docsBaseUrl));
}

/**
 * The output folder is swapped in from a temporary folder, which mkdtemp creates with mode 0700;
 * give it the mode a plain `mkdir` would (0777 minus the umask), as `cdk8s synth` leaves it.
 */
function normalizeMode(outdir: string): void {
  const umask = process.umask();
  fs.chmodSync(path.resolve(outdir), 0o777 & ~umask);
}

/**
 * `rollwise synth` runs an app command that is not `node <file>` (e.g. `npx ts-node main.ts`) as
 * `cdk8s synth` does, in a shell, with this variable naming a JSON request file
 * ({ outdir, check }). The RollwiseApp answers in `<file>.out` with the SynthResult or the error.
 */
export const SYNTH_REQUEST_ENV = 'ROLLWISE_SYNTH_REQUEST';

/** What a RollwiseApp writes to `<request>.out`. */
export type SynthAnswer =
  | { readonly result: SynthResult }
  | {
      readonly error: {
        readonly message: string;
        readonly input?: string;
        readonly value?: string;
        readonly why?: string;
        readonly fix?: string;
        readonly service?: string;
        readonly path?: string;
      };
    };

function answerSynthRequest(app: RollwiseApp, requestFile: string): void {
  const request = JSON.parse(fs.readFileSync(requestFile, 'utf8')) as {
    outdir: string;
    check?: boolean;
    validateSchemas?: boolean;
  };
  let answer: SynthAnswer;
  try {
    answer = {
      result: app.synthesize({
        outdir: request.outdir,
        check: request.check,
        validateSchemas: request.validateSchemas,
        onWarning: () => undefined,
      }),
    };
  } catch (e) {
    answer = errorAnswer(e);
  }
  fs.writeFileSync(`${requestFile}.out`, JSON.stringify(answer));
  if ('error' in answer) process.exitCode = 1;
}

function errorAnswer(e: unknown): SynthAnswer {
  const err = e as Error & {
    input?: string;
    value?: string;
    why?: string;
    fix?: string;
    service?: string;
    path?: string;
  };
  return {
    error: {
      message: err?.message ?? String(e),
      input: err?.input,
      value: err?.value,
      why: err?.why,
      fix: err?.fix,
      service: err?.service,
      path: err?.path,
    },
  };
}

const REPORTING = Symbol.for('rollwise.errors.reporting');

/**
 * An app run as a program (`cdk8s synth`, `node main.js`, `npx ts-node main.ts`) that fails on bad
 * input prints the error as the CLI does, without a stack trace, and exits 1: an input error
 * (thrown while the constructs are built, or at synth) or the synth-time checks' "Validation
 * failed". Under `rollwise synth`'s shell command the answer file carries it instead. Any other
 * error is rethrown untouched, so a bug in the app keeps its stack.
 */
function reportErrorsWithoutStack(): void {
  const g = globalThis as { [REPORTING]?: boolean };
  if (g[REPORTING]) return;
  g[REPORTING] = true;
  const handler = (e: unknown): void => {
    const checks = e instanceof Error && e.message.startsWith('Validation failed with the following errors');
    if (!isInputError(e) && !checks) {
      process.removeListener('uncaughtException', handler);
      process.nextTick(() => {
        throw e;
      });
      return;
    }
    const request = process.env[SYNTH_REQUEST_ENV];
    if (request && !fs.existsSync(`${request}.out`)) fs.writeFileSync(`${request}.out`, JSON.stringify(errorAnswer(e)));
    process.stderr.write(isInputError(e) ? formatInputError(e) : `rollwise: ${(e as Error).message}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', handler);
}
