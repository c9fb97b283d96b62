import * as fs from 'fs';
import * as path from 'path';

/**
 * The pinned upstream files rollwise validates against, each at the tag the README's Schemas
 * section names, laid out as the lookup expects them: `<dir>/crds/<file>` and `<dir>/schemas/<file>`
 * (src/schemas/locate.ts). `rollwise schemas fetch` downloads them; the repository's
 * `npm run fetch:schemas` runs it.
 */
export interface PinnedFile {
  /** Path inside the schema folder. */
  readonly file: string;
  readonly url: string;
}

const gh = 'https://raw.githubusercontent.com';
const rollouts = (name: string) => `${gh}/argoproj/argo-rollouts/v1.9.1/manifests/crds/${name}-crd.yaml`;
const gateway = (plural: string) =>
  `${gh}/kubernetes-sigs/gateway-api/v1.6.1/config/crd/standard/gateway.networking.k8s.io_${plural}.yaml`;
const promop = (plural: string) =>
  `${gh}/prometheus-operator/prometheus-operator/v0.93.0/example/prometheus-operator-crd/monitoring.coreos.com_${plural}.yaml`;

export const PINNED: readonly PinnedFile[] = [
  { file: 'crds/argo-rollouts-rollout.yaml', url: rollouts('rollout') },
  { file: 'crds/argo-rollouts-analysis-template.yaml', url: rollouts('analysis-template') },
  { file: 'crds/argo-rollouts-cluster-analysis-template.yaml', url: rollouts('cluster-analysis-template') },
  { file: 'crds/argo-rollouts-analysis-run.yaml', url: rollouts('analysis-run') },
  { file: 'crds/argo-rollouts-experiment.yaml', url: rollouts('experiment') },
  { file: 'crds/gateway-api-httproutes.yaml', url: gateway('httproutes') },
  { file: 'crds/gateway-api-gateways.yaml', url: gateway('gateways') },
  {
    file: 'crds/envoy-gateway-backendtrafficpolicies.yaml',
    url: `${gh}/envoyproxy/gateway/v1.9.0/charts/gateway-helm/charts/crds/crds/generated/gateway.envoyproxy.io_backendtrafficpolicies.yaml`,
  },
  { file: 'crds/prometheus-operator-prometheusrules.yaml', url: promop('prometheusrules') },
  { file: 'crds/prometheus-operator-servicemonitors.yaml', url: promop('servicemonitors') },
  { file: 'crds/prometheus-operator-podmonitors.yaml', url: promop('podmonitors') },
  { file: 'crds/argo-cd-application.yaml', url: `${gh}/argoproj/argo-cd/v3.5.1/manifests/crds/application-crd.yaml` },
  {
    file: 'schemas/k8s-v1.28.0-definitions.json',
    url: `${gh}/cdk8s-team/cdk8s/master/kubernetes-schemas/v1.28.0/_definitions.json`,
  },
  // platform.kubernetesVersion V1_33 (src/decisions/kubernetes-version.ts) validates against it.
  {
    file: 'schemas/k8s-v1.33.0-definitions.json',
    url: `${gh}/cdk8s-team/cdk8s/master/kubernetes-schemas/v1.33.0/_definitions.json`,
  },
];

/**
 * Where a pinned file comes from, as a person names it: `kubernetes-sigs/gateway-api v1.6.1,
 * standard channel` for `crds/gateway-api-httproutes.yaml`. Undefined for a file not pinned.
 */
export function pinnedOrigin(file: string): string | undefined {
  const url = PINNED.find((p) => p.file === file)?.url;
  const m = url ? /^https:\/\/raw\.githubusercontent\.com\/([^/]+\/[^/]+)\/([^/]+)\//.exec(url) : null;
  if (!m) return undefined;
  return `${m[1]} ${m[2]}${url!.includes('/crd/standard/') ? ', standard channel' : ''}`;
}

/** Why `rollwise schemas fetch` failed, said as the CLI prints it (no stack trace). */
export class SchemaFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaFetchError';
  }
}

export interface FetchSchemasOptions {
  /**
   * Where the files come from: a folder or a base URL with the same crds/ and schemas/ layout (a
   * mirror, or a .schemas/ folder fetched on another machine).
   * @default the pinned upstream URLs (raw.githubusercontent.com: needs network)
   */
  readonly from?: string;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Progress, one line per file. @default none */
  readonly onFile?: (file: string) => void;
}

/** What a downloaded file must look like: a CRD, or the Kubernetes definitions (not an HTML error page). */
function checkContent(file: string, data: Buffer, source: string): void {
  const text = data.toString('utf8');
  let ok: boolean;
  try {
    // a CRD file's top-level kind (read by line: parsing a multi-megabyte CRD is slow and the
    // validator parses it anyway), or the definitions object of the Kubernetes OpenAPI file
    ok = file.endsWith('.json')
      ? typeof (JSON.parse(text) as { definitions?: unknown }).definitions === 'object'
      : /^apiVersion: apiextensions\.k8s\.io\/v1\s*$/m.test(text) && /^kind: CustomResourceDefinition\s*$/m.test(text);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new SchemaFetchError(
      `${source} is ` +
        `not ${file.endsWith('.json') ? 'the Kubernetes OpenAPI definitions' : 'a CustomResourceDefinition'} ` +
        `(${data.length} bytes starting ${JSON.stringify(text.slice(0, 60))}); nothing was written.`,
    );
}

/** The cause of a failed fetch(), e.g. "getaddrinfo ENOTFOUND raw.githubusercontent.com". */
function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.message ?? cause?.code ?? (e as Error)?.message ?? String(e);
}

/**
 * Downloads the pinned files into `dir` (crds/ and schemas/), all or nothing: every file is
 * fetched and checked first, then written (each through a temporary file and a rename). Returns
 * the files written. Throws a SchemaFetchError naming the file, the source and the cause.
 */
export async function fetchPinnedSchemas(dir: string, opts: FetchSchemasOptions = {}): Promise<string[]> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const from = opts.from;
  const local = from !== undefined && !/^https?:\/\//.test(from);
  const got: [string, Buffer][] = [];
  for (const { file, url } of PINNED) {
    const source = from === undefined ? url : local ? path.join(from, file) : `${from.replace(/\/+$/, '')}/${file}`;
    let data: Buffer;
    if (local) {
      if (!fs.existsSync(source))
        throw new SchemaFetchError(
          `${source} does not exist: --from must be a folder with crds/ and schemas/ as \`rollwise schemas fetch\` ` +
            `writes them (e.g. another project's .schemas/); nothing was written.`,
        );
      data = fs.readFileSync(source);
    } else {
      let res: Response;
      try {
        res = await doFetch(source);
      } catch (e) {
        throw new SchemaFetchError(
          `could not download ${file} from ${source}: ${causeOf(e)}. \`rollwise schemas fetch\` downloads the pinned ` +
            `files from ${from ?? 'raw.githubusercontent.com'} and needs network access to it (Node's fetch does not ` +
            'use HTTPS_PROXY). Offline, copy a .schemas/ folder fetched elsewhere with --from <folder>, or set ' +
            'ROLLWISE_SCHEMA_DIR to it; nothing was written.',
        );
      }
      if (!res.ok)
        throw new SchemaFetchError(
          `could not download ${file}: ${source} answered HTTP ${res.status}; nothing was written.`,
        );
      data = Buffer.from(await res.arrayBuffer());
    }
    checkContent(file, data, source);
    got.push([file, data]);
    opts.onFile?.(file);
  }
  for (const [file, data] of got) {
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.tmp-${process.pid}`, data);
    fs.renameSync(`${target}.tmp-${process.pid}`, target);
  }
  return got.map(([file]) => file);
}
