import { looksLikeMigration } from '../../src/checks/migration-commands';

/** The migration detection synth and lint (RW306) share (issue 24 review): by command content, shell strings included, and names. */
const hit = (command: string[], name = 'app', byName = false) => looksLikeMigration({ name, command }, byName)?.reason;

describe('detected by what the container runs', () => {
  test.each([
    [
      ['sh', '-c', 'python manage.py migrate --noinput && exec gunicorn orders.wsgi:application'],
      /"python manage\.py migrate --noinput" \(Django's migrate\) in its shell script \(command\)/,
    ],
    [
      ['/bin/bash', '-ec', 'set -x; flask db upgrade\nexec flask run'],
      /"flask db upgrade" \(Flask-Migrate's db upgrade\)/,
    ],
    [['npx', 'prisma', 'db', 'push'], /Prisma/],
    [['sh', '-c', 'npx prisma migrate deploy && node dist/main.js'], /"npx prisma migrate deploy" \(Prisma\)/],
    [['bundle', 'exec', 'rails', 'db:migrate'], /Rails/],
    [['bin/rails', 'db:prepare'], /Rails/],
    [['alembic', '-c', 'alembic.ini', 'upgrade', 'head'], /Alembic's upgrade/],
    [['python', '-m', 'alembic', 'upgrade', 'head'], /Alembic's upgrade/],
    [['goose', '-dir', 'migrations', 'postgres', 'host=db', 'up'], /goose/],
    [['flyway', '-url=jdbc:postgresql://db/app', 'migrate'], /Flyway's migrate/],
    [['liquibase', '--changelog-file=changelog.xml', 'update'], /Liquibase's update/],
    [['npx', 'knex', 'migrate:latest'], /Knex/],
    [['npx', 'sequelize-cli', 'db:migrate'], /Sequelize's db:migrate/],
    [['migrate', '-path', '/migrations', '-database', '$(DATABASE_URL)', 'up'], /golang-migrate/],
    [['php', 'artisan', 'migrate', '--force'], /Laravel/],
    [['npm', 'run', 'db:migrate'], /a package script/],
    [['/ledger', 'migrate'], /"\/ledger migrate" \(a migrate subcommand\)/],
    [['/server', '--auto-migrate'], /a migrate subcommand/],
  ])('%j', (command, reason) => {
    expect(hit(command)).toMatch(reason);
  });
});

describe('not detected (false positives kept low)', () => {
  test.each([
    [['python', 'manage.py', 'migrate', '--help']],
    [['python', 'manage.py', 'migrate', '--check']],
    [['python', 'manage.py', 'showmigrations']],
    [['alembic', 'upgrade', 'head', '--sql']],
    [['alembic', 'current']],
    [['npx', 'prisma', 'migrate', 'status']],
    [['rails', 'db:migrate:status']],
    [['liquibase', 'update-sql']],
    [['flyway', 'info']],
    [['gunicorn', '--bind', '0.0.0.0:8000', 'immigration.wsgi:application']],
    [['sh', '-c', 'echo run migrate first; exec /app']],
    [['/app', '--no-migrate']],
    [['/app', '--migrate=false']],
    [['node', 'server.js', '--migrations-dir', '/m']],
  ])('%j', (command) => {
    expect(hit(command)).toBeUndefined();
  });
});

describe('by name, for init containers and sidecars', () => {
  test('a container named migrate or db-migrations is one; a migrate substring in another word is not', () => {
    expect(hit(['/bin/sleep', 'infinity'], 'migrate', true)).toBe('"migrate" in its name (migrate)');
    expect(hit(['/job'], 'db-migrations', true)).toBe('"migrations" in its name (db-migrations)');
    expect(hit(['/job'], 'immigration-sync', true)).toBeUndefined();
    expect(hit(['/job'], 'migrate', false)).toBeUndefined();
    expect(hit(['/migrate', '--help'], 'migrate', true)).toBeUndefined();
  });

  test('an init container named schema that runs flask db upgrade is found by its command', () => {
    expect(hit(['flask', 'db', 'upgrade'], 'schema', true)).toMatch(/Flask-Migrate/);
  });
});
