/**
 * Whether a container of a serving pod runs a schema migration: by what its command runs (shell
 * scripts included: `sh -c "python manage.py migrate --noinput && exec gunicorn ..."`, the most
 * common pattern, runs the migration in every pod, the canary's included) and, for init containers
 * and sidecars, by its name. One implementation for synth (src/decisions/containers.ts) and for
 * `rollwise lint` (RW306, src/rules/migration-rules.ts).
 *
 * False positives are kept low: a tool matches only with the verb that applies migrations (Django
 * `migrate`, not `showmigrations`; Alembic `upgrade`, not `current`; Prisma `migrate deploy`, not
 * `migrate status`), a command that asks for help, a plan, a check or offline SQL does not match
 * (`--help`, `--plan`, `--check`, `--sql`, `--dry-run`), and a name matches only as a whole word
 * between "-", "_" or "." (`migrate`, `db-migrations`; not `immigration-api`), and not on a
 * container that is shown to wait for something else (k8s-wait-for with a `job` or `pod` target).
 */

/** The container, as synth's decisions and a manifest both have it. */
export interface MigrationCandidate {
  readonly name?: string;
  readonly command?: readonly unknown[];
  readonly args?: readonly unknown[];
  /** The container's image, when known: a wait image (k8s-wait-for) shows what the container does. */
  readonly image?: unknown;
}

/** Why it looks like a migration: what matched, and where. */
export interface MigrationMatch {
  /** E.g. `"python manage.py migrate --noinput" (Django's migrate) in its command`. */
  readonly reason: string;
}

/**
 * A tool and the words after it that apply migrations (each list: consecutive words, the first after the tool
 * anywhere).
 */
interface Tool {
  readonly tool: RegExp;
  readonly verbs: readonly (readonly RegExp[])[];
  readonly label: string;
  /** Only as the program itself (golang-migrate's `migrate` is also many programs' subcommand). */
  readonly first?: boolean;
}

const w = (s: string) => new RegExp(`^${s}$`);
const TOOLS: readonly Tool[] = [
  { tool: /^(manage\.py|django-admin)$/, verbs: [[w('migrate')]], label: "Django's migrate" },
  { tool: /^flask$/, verbs: [[w('db'), w('upgrade')]], label: "Flask-Migrate's db upgrade" },
  { tool: /^alembic$/, verbs: [[w('upgrade')]], label: "Alembic's upgrade" },
  {
    tool: /^prisma$/,
    verbs: [
      [w('migrate'), /^(deploy|dev|reset)$/],
      [w('db'), w('push')],
    ],
    label: 'Prisma',
  },
  { tool: /^(rails|rake)$/, verbs: [[/^db:(migrate(:up|:redo)?|prepare|setup|reset|schema:load)$/]], label: 'Rails' },
  { tool: /^goose$/, verbs: [[/^(up|up-by-one|up-to|redo)$/]], label: 'goose' },
  { tool: /^flyway$/, verbs: [[w('migrate')]], label: "Flyway's migrate" },
  {
    tool: /^liquibase$/,
    verbs: [[/^(update|update-count|update-to-tag|updateCount|updateToTag)$/]],
    label: "Liquibase's update",
  },
  { tool: /^knex$/, verbs: [[/^migrate:(latest|up)$/]], label: 'Knex' },
  { tool: /^sequelize(-cli)?$/, verbs: [[w('db:migrate')]], label: "Sequelize's db:migrate" },
  { tool: /^migrate$/, verbs: [[/^(up|goto)$/]], label: 'golang-migrate', first: true },
  { tool: /^dbmate$/, verbs: [[/^(up|migrate)$/]], label: 'dbmate' },
  { tool: /^sqitch$/, verbs: [[w('deploy')]], label: "Sqitch's deploy" },
  { tool: /^typeorm(-ts-node-(commonjs|esm))?$/, verbs: [[w('migration:run')]], label: "TypeORM's migration:run" },
  {
    tool: /^diesel$/,
    verbs: [
      [w('migration'), w('run')],
      [w('database'), w('setup')],
    ],
    label: 'Diesel',
  },
  { tool: /^sqlx$/, verbs: [[w('migrate'), w('run')]], label: 'sqlx' },
  { tool: /^atlas$/, verbs: [[/^(migrate|schema)$/, w('apply')]], label: 'Atlas' },
  { tool: /^mix$/, verbs: [[w('ecto.migrate')]], label: "Ecto's migrate" },
  { tool: /^artisan$/, verbs: [[w('migrate')]], label: "Laravel's migrate" },
  { tool: /^console$/, verbs: [[w('doctrine:migrations:migrate')]], label: 'Doctrine Migrations' },
  {
    tool: /^(npm|yarn|pnpm|bun)$/,
    verbs: [[/^(db:)?migrat(e|ions?)(:(up|latest|deploy|run))?$/]],
    label: 'a package script',
    first: true,
  },
];

/** Words that make an invocation read-only (help, a plan, a check, offline SQL). */
const READ_ONLY = /^(--help|-h|help|--version|--plan|--check|--sql|--dry-?run|-dryRunOutput(=.*)?|--list|--fake)$/;
/** A generic subcommand or flag that migrates (`/ledger migrate`, `app db:migrate`, `server --migrate`). */
const GENERIC_WORD = /^(migrate|db:migrate|db-migrate|dbmigrate|migrations?:(migrate|run|up))$/;
const GENERIC_FLAG = /^--(auto-?migrate|migrate|run-migrations?)(=(true|1|yes))?$/;
/** Programs whose arguments are data, not commands. */
const NOT_COMMANDS = /^(echo|printf|grep|egrep|cat|ls|test|\[|true|false|:)$/;
const SHELLS = /^(sh|bash|ash|dash|zsh)$/;
const NAME_WORDS = new Set([
  'migrate',
  'migrates',
  'migration',
  'migrations',
  'migrator',
  'dbmigrate',
  'flyway',
  'liquibase',
  'alembic',
]);

const basename = (s: string) => s.split('/').pop() ?? s;

/**
 * The simple commands of a shell script: split on operators and newlines, each split into words (quotes removed; no
 * expansion).
 */
export function shellCommands(script: string): string[][] {
  const out: string[][] = [];
  for (const part of script.split(/&&|\|\||[;|&\n()`{}]|\$\(/)) {
    const words = (part.match(/"[^"]*"|'[^']*'|[^\s"']+/g) ?? []).map((x) => x.replace(/^["']|["']$/g, ''));
    if (words.length) out.push(words);
  }
  return out;
}

/** The simple commands a container runs: its argv, or the script of `sh -c` (in command or args). */
function invocations(argv: readonly string[]): { words: string[]; script?: number }[] {
  if (argv.length && SHELLS.test(basename(argv[0]))) {
    const c = argv.findIndex((a, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(a));
    if (c > 0 && c + 1 < argv.length) return shellCommands(argv[c + 1]).map((words) => ({ words, script: c + 1 }));
  }
  return [{ words: [...argv] }];
}

/** The first migration an invocation runs, with its label, or undefined. */
function migrationIn(words: readonly string[]): string | undefined {
  // leading VAR=value assignments and wrappers (exec, env, time, nice) are not the program
  let start = 0;
  while (
    start < words.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]) || /^(exec|env|time|nice|nohup)$/.test(words[start]))
  )
    start++;
  const ws = words.slice(start);
  if (ws.length === 0 || NOT_COMMANDS.test(basename(ws[0])) || ws.some((x) => READ_ONLY.test(x))) return undefined;
  let known = false;
  for (const t of TOOLS) {
    for (let i = 0; i < (t.first ? 1 : ws.length); i++) {
      if (!t.tool.test(basename(ws[i]))) continue;
      known = true;
      for (const verb of t.verbs) {
        for (let j = i + 1; j + verb.length <= ws.length; j++) {
          if (verb.every((re, k) => re.test(ws[j + k]))) return t.label;
        }
      }
    }
  }
  // a known tool without its migrating verb (prisma migrate status) is read-only; else a program's own migrate
  // subcommand
  if (!known && ws.slice(1).some((x) => GENERIC_WORD.test(x) || GENERIC_FLAG.test(x))) return 'a migrate subcommand';
  return undefined;
}

/** wait_for.sh's modes: what it waits for, `-we`/`-wr` also accepting errors (see waitsFor). */
const WAIT_FOR_MODE = /^(job|pod|service)(-we|-wr)?$/;

/**
 * What the container waits for, when it is groundnuty/k8s-wait-for (any registry, tag or fork of
 * that image name) running wait_for.sh with a mode and a target: `args: [job, <name>]` under the
 * image's entrypoint, or wait_for.sh in its command or a shell script. The image's ENTRYPOINT is
 * wait_for.sh (groundnuty/k8s-wait-for Dockerfile at e907b145), whose main() takes `job|pod|
 * service[-we]` and a name or `-l<selector>` and only polls kubectl until the Job succeeded or the
 * pods are ready (wait_for.sh at accb018c; README at 45993984 adds the `-wr` modes). Such a
 * container runs nothing itself, whatever its name says: quarkusio/quarkus-super-heroes
 * rest-fights/deploy/k8s/native-minikube.yml's `wait-for-liquibase-mongodb` waits for the Job
 * `rest-fights-liquibase-mongodb-init`, where the migration already runs once (set 7).
 */
function waitsFor(c: MigrationCandidate, argv: readonly string[]): string | undefined {
  if (typeof c.image !== 'string') return undefined;
  const repository = c.image
    .trim()
    .split('@')[0]
    .replace(/:[^/]*$/, '')
    .split('/')
    .pop();
  if (repository !== 'k8s-wait-for') return undefined;
  const full = (c.command?.length ?? 0) === 0 ? ['wait_for.sh', ...argv] : [...argv];
  for (const { words } of invocations(full)) {
    if (words.length >= 3 && basename(words[0]) === 'wait_for.sh' && WAIT_FOR_MODE.test(words[1]))
      return `${words[1]} ${words[2]}`;
  }
  return undefined;
}

/**
 * Why the container looks like a schema migration, or undefined. `byName` also looks at its name
 * (init containers and sidecars; the app container's name is rollwise's own).
 */
export function looksLikeMigration(c: MigrationCandidate, byName: boolean): MigrationMatch | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])].map(String);
  const commandLength = c.command?.length ?? 0;
  for (const inv of invocations(argv)) {
    const label = migrationIn(inv.words);
    const where =
      inv.script === undefined
        ? commandLength
          ? 'command'
          : 'args'
        : 'shell script ' + `(${inv.script < commandLength ? 'command' : 'args'})`;
    if (label) return { reason: `"${inv.words.join(' ')}" (${label}) in its ${where}` };
  }
  if (byName && typeof c.name === 'string') {
    const word = c.name
      .toLowerCase()
      .split(/[-_.]/)
      .find((x) => NAME_WORDS.has(x));
    const readOnly = argv.some((x) => READ_ONLY.test(x));
    // A name about a migration on a container that waits for one (a Job) is not the migration.
    if (word && !readOnly && waitsFor(c, argv) === undefined) return { reason: `"${word}" in its name (${c.name})` };
  }
  return undefined;
}
