import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { App } from 'cdk8s';
import { main } from '../../src/cli/main';
import { locateSchemaDir } from '../../src/schemas/locate';
import { fetchPinnedSchemas, PINNED, SchemaFetchError } from '../../src/schemas/pinned';
import { addSynthWarning, warningsOf } from '../../src/synth/output';

/**
 * Issue 24: a project that installed rollwise gets the pinned schemas with `rollwise schemas
 * fetch` into its own .schemas/ (where lookup already looks). Served here by a real HTTP server
 * on the loopback (this machine has no route to raw.githubusercontent.com); the upstream URLs
 * themselves are the PINNED list.
 */
const source = locateSchemaDir();
let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-schemas-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** A mirror with the crds/ and schemas/ layout; `html` answers every file with an error page instead. */
async function serve(html = false): Promise<{ url: string; close: () => Promise<void>; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const file = path.join(source, decodeURIComponent(req.url ?? '/'));
    if (html) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Sign in to the corporate proxy</body></html>');
      return;
    }
    if (!file.startsWith(source) || !fs.existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200);
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const run = async (...args: string[]) => {
  let out = '';
  let err = '';
  const code = await main(
    ['node', 'rollwise', ...args],
    (t) => {
      out += t;
    },
    (t) => {
      err += t;
    },
  );
  return { code, out, err };
};

test('the pinned list: every CRD and both Kubernetes definitions, each at a tag the README names', () => {
  expect(PINNED.map((p) => p.file).sort()).toEqual(
    [
      ...fs.readdirSync(path.join(source, 'crds')).map((f) => `crds/${f}`),
      ...fs.readdirSync(path.join(source, 'schemas')).map((f) => `schemas/${f}`),
    ].sort(),
  );
  for (const p of PINNED.filter((x) => x.file.startsWith('crds/')))
    expect(p.url).toMatch(/\/(v1\.9\.1|v1\.6\.1|v1\.9\.0|v0\.93\.0|v3\.5\.1)\//);
});

test('rollwise schemas fetch --from <mirror URL> writes crds/ and schemas/ into .schemas, byte for byte, and lookup finds them there', async () => {
  const mirror = await serve();
  try {
    const dir = path.join(work, '.schemas');
    const r = await run('schemas', 'fetch', '--dir', dir, '--from', mirror.url);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^fetched crds\/argo-rollouts-rollout\.yaml\n/);
    expect(r.out).toMatch(
      /14 pinned schema files in .*\.schemas\/; rollwise synth and lint find them there when run in this folder/,
    );
    expect(mirror.hits).toHaveLength(PINNED.length);
    for (const p of PINNED)
      expect(fs.readFileSync(path.join(dir, p.file)).equals(fs.readFileSync(path.join(source, p.file)))).toBe(true);
    // the project's own .schemas/ (the folder synth runs in) is among the folders lookup reads
    // (test/package/pack.test.ts shows an installed package using it)
    const cwd = process.cwd();
    try {
      process.chdir(work);
      expect((await run('schemas', 'where')).out).toContain(`  ${path.join(process.cwd(), '.schemas')}`);
    } finally {
      process.chdir(cwd);
    }
  } finally {
    await mirror.close();
  }
}, 60_000);

test('--from a folder (offline: a .schemas/ fetched on another machine) copies it', async () => {
  const r = await run('schemas', 'fetch', '--dir', path.join(work, 'copy'), '--from', source);
  expect(r.code).toBe(0);
  expect(fs.readdirSync(path.join(work, 'copy', 'crds'))).toHaveLength(12);
  const missing = await run('schemas', 'fetch', '--dir', path.join(work, 'none'), '--from', path.join(work, 'nowhere'));
  expect(missing.code).toBe(1);
  expect(missing.err).toMatch(
    /^rollwise schemas fetch: .*nowhere\/crds\/argo-rollouts-rollout\.yaml does not exist: --from must be a folder with crds\/ and schemas\//,
  );
  expect(fs.existsSync(path.join(work, 'none'))).toBe(false);
}, 60_000);

test('offline (nothing listens): exit 1 with the cause, that it needs network, how to copy a set instead, and nothing written', async () => {
  const closed = await serve();
  await closed.close(); // its port now refuses connections
  const dir = path.join(work, '.schemas');
  const r = await run('schemas', 'fetch', '--dir', dir, '--from', closed.url);
  expect(r.code).toBe(1);
  expect(r.out).toBe('');
  expect(r.err).toMatch(
    /^rollwise schemas fetch: could not download crds\/argo-rollouts-rollout\.yaml from http:\/\/127\.0\.0\.1:\d+\/crds\/argo-rollouts-rollout\.yaml: .*ECONNREFUSED.*needs network access to it.*Offline, copy a \.schemas\/ folder fetched elsewhere with --from <folder>, or set ROLLWISE_SCHEMA_DIR to it; nothing was written\.\n$/,
  );
  expect(fs.existsSync(dir)).toBe(false);
});

test('the upstream URLs without a route to them: the same clear failure (DNS, as on this machine)', async () => {
  const failing = (async () => {
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND raw.githubusercontent.com'), { code: 'ENOTFOUND' }),
    });
  }) as unknown as typeof fetch;
  await expect(fetchPinnedSchemas(path.join(work, 's'), { fetch: failing })).rejects.toThrow(
    new SchemaFetchError(
      "could not download crds/argo-rollouts-rollout.yaml from https://raw.githubusercontent.com/argoproj/argo-rollouts/v1.9.1/manifests/crds/rollout-crd.yaml: getaddrinfo ENOTFOUND raw.githubusercontent.com. `rollwise schemas fetch` downloads the pinned files from raw.githubusercontent.com and needs network access to it (Node's fetch does not use HTTPS_PROXY). Offline, copy a .schemas/ folder fetched elsewhere with --from <folder>, or set ROLLWISE_SCHEMA_DIR to it; nothing was written.",
    ),
  );
});

test("a proxy's sign-in page instead of a CRD is refused, nothing written", async () => {
  const portal = await serve(true);
  try {
    const dir = path.join(work, '.schemas');
    const r = await run('schemas', 'fetch', '--dir', dir, '--from', portal.url);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /crds\/argo-rollouts-rollout\.yaml is not a CustomResourceDefinition \(\d+ bytes starting "<html><body>Sign in/,
    );
    expect(fs.existsSync(dir)).toBe(false);
  } finally {
    await portal.close();
  }
});

test('a warning about the whole app starts with its subject, not an empty construct path', () => {
  const app = new App();
  addSynthWarning(app, 'schemas: no pinned schemas for Kubernetes 1.28 were found');
  expect(warningsOf(app)).toEqual(['schemas: no pinned schemas for Kubernetes 1.28 were found']);
});
