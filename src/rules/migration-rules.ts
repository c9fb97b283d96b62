import { looksLikeMigration } from '../checks/migration-commands';
import { arr, podSpec, podSpecPath, rec, str, WORKLOAD_KINDS } from './k8s';
import { RuleDefinition } from './rule';

/**
 * A schema migration inside a serving workload's pods, detected with the same code synth uses
 * (src/checks/migration-commands.ts).
 */
export const MIGRATION_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW306-migration-runs-in-pods',
    severity: 'warning',
    title:
      "A serving workload's pod runs a schema migration (in an init container, a sidecar or the app's own " +
      'command)',
    kinds: WORKLOAD_KINDS,
    mechanism:
      "A migration in the pod template runs in every pod: in a canary's first pods before any analysis has " +
      'measured anything, in several pods at once on a scale-up (racing for the migration lock), and again on every ' +
      'restart; by the time a canary could be aborted the schema has changed for the stable version too, and `git ' +
      'revert` does not undo it. Detected by what the container runs (shell scripts included: `sh -c "python ' +
      'manage.py migrate && exec gunicorn ..."`) and, for init containers and sidecars, by a name such as `migrate`, ' +
      'unless the container is shown to wait for the migration rather than run it: the groundnuty/k8s-wait-for image ' +
      'running wait_for.sh with a `job`, `pod` or `service` mode and a target (`args: [job, app-migrate]`; it only ' +
      'polls kubectl until that Job succeeded; quarkusio/quarkus-super-heroes ' +
      'rest-fights/deploy/k8s/*-all-downstream.yml, held-out set 7). A command that runs a migration tool is ' +
      'reported whatever the image.',
    fieldNotes: 'docs/mechanisms.md#migrations',
    fix:
      'Run the migration once per release before the new pods, outside them: a Job that Argo CD runs as a PreSync ' +
      'hook (rollwise: `migrations: Migration.job({ command: [...] })`), idempotent and backward compatible; remove ' +
      'it from the pod template.',
    facts: [],
    check(o, ctx) {
      const spec = podSpec(o);
      if (!spec) return;
      const base = podSpecPath(o);
      for (const list of ['initContainers', 'containers']) {
        arr(spec[list]).forEach((x, i) => {
          const c = rec(x);
          if (!c) return;
          const name = str(c.name) ?? `#${i}`;
          const sidecar = list === 'initContainers' && c.restartPolicy === 'Always';
          // The main container is named after the app, never after its job; others by name too.
          const byName = list === 'initContainers' || (list === 'containers' && i > 0);
          const m = looksLikeMigration({ name, command: arr(c.command), args: arr(c.args), image: c.image }, byName);
          if (!m) return;
          const what =
            list === 'containers'
              ? i === 0
                ? 'the main container'
                : 'a sidecar container'
              : sidecar
                ? 'a native sidecar'
                : 'an init container';
          ctx.report(
            o,
            `${base}.${list}[${i}]`,
            `container "${name}", ${what}, looks like a schema migration (${m.reason}): it runs in every pod ` +
              `of ${o.kind} ${o.name}, the canary's first pods and every restart included.`,
            { container: name },
          );
        });
      }
    },
  },
];
