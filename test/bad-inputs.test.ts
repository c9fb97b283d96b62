import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, Duration, JsonPatch, Lazy } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { Platform, ShutdownDelay } from '../src/decisions/platform';
import { Delivery } from '../src/decisions/canary';
import { EnvFrom, EnvValue, Volume } from '../src/decisions/containers';
import { AppServer } from '../src/decisions/keep-alive';
import { KubernetesVersion } from '../src/decisions/kubernetes-version';
import { Environment, Sizing } from '../src/environments';
import { checkoutApiProps, examplePlatform } from '../src/example';
import { RollwiseInputError } from '../src/errors';
import { SynthLayout } from '../src/synth/layout';
import { RollwiseApp } from '../src/synth/rollwise-app';
import { synthService } from './support/manifests';

/**
 * The bad-input catalogue: each case names the input and value the message must contain, a
 * fragment of why it is unsafe, and a fragment of the fix.
 */
interface Case {
  readonly title: string;
  readonly props?: Partial<HttpServiceProps>;
  readonly id?: string;
  readonly build?: () => unknown;
  readonly input: string;
  readonly value: string;
  readonly why: RegExp;
  readonly fix: RegExp;
}

const base = checkoutApiProps();

/** The README's rolling-update example (web-front): synthesized in well under a second. */
function webFront(): HttpServiceProps {
  return {
    image: 'ghcr.io/acme/web-front:5.1.0',
    port: 3000,
    replicas: 3,
    health: { readinessPath: '/ready', readinessP99UnderLoad: Duration.millis(20) },
    resources: { cpu: '250m', memory: '256Mi' },
    appServer: AppServer.nodeHttp(),
    container: { runAs: { user: 1000 } },
    delivery: Delivery.rollingUpdate(),
    platform: examplePlatform(),
  };
}

/** A RollwiseApp into a new temporary folder, built by `build`, synthesized (what `rollwise synth` runs). */
function synthApp(build: (app: RollwiseApp) => void, props: ConstructorParameters<typeof RollwiseApp>[0] = {}): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bad-'));
  try {
    const app = new RollwiseApp({ outdir: path.join(dir, 'dist'), onWarning: () => undefined, ...props });
    build(app);
    app.synthesize();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
type Writable<T> = { -readonly [K in keyof T]: T[K] };
const webIn = (
  app: App,
  chartId = 'c',
  change: (p: Writable<HttpServiceProps>) => void = () => undefined,
): HttpService => {
  const p = webFront();
  change(p);
  return new HttpService(new Chart(app, chartId, { namespace: 'shop' }), 'web-front', p);
};
const environment = (props: Partial<ConstructorParameters<typeof Environment>[0]>) =>
  new Environment({
    name: 'dev',
    destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
    platform: examplePlatform('dev'),
    ...props,
  });
const sidecar = { name: 'proxy', image: 'ghcr.io/acme/proxy:1.0.0', resources: { cpu: '100m', memory: '64Mi' } };
const sixty = `checkout-api-${'x'.repeat(47)}`;
const cases: Case[] = [
  // issue 12: the inputs a container and a pod need
  {
    title: 'sidecar with a CPU limit and no reason',
    props: { sidecars: [{ ...sidecar, overrides: { cpuLimit: { value: '200m', because: '' } } }] },
    input: 'sidecars[0].overrides.cpuLimit',
    value: '200m',
    why: /must carry its reason.*No CPU limit/,
    fix: /add because:/,
  },
  {
    title: '60-character name (the canary Service would have 67)',
    id: sixty,
    input: 'name',
    value: sixty,
    why: /Service name "checkout-api-x+-canary" \(67 characters\).*DNS-1035 label, at most 63.*longest derived suffix is "-canary-background"/,
    fix: /at most 56 characters/,
  },
  {
    title: 'root user',
    props: { container: { runAs: { user: 0 } } },
    input: 'container.runAs.user',
    value: '0',
    why: /runAsNonRoot refuses user 0/,
    fix: /numeric uid your image runs as/,
  },
  {
    title: 'env from a Secret key with a space',
    props: { container: { env: { DATABASE_URL: EnvValue.fromSecret('checkout-db', 'pass word') } } },
    input: 'container.env.DATABASE_URL',
    value: 'pass word',
    why: /not a Secret key/,
    fix: /key as it appears/,
  },
  {
    title: 'env from a Secret with an invalid name',
    props: { container: { env: { DATABASE_URL: EnvValue.fromSecret('Checkout_DB', 'url') } } },
    input: 'container.env.DATABASE_URL',
    value: 'Checkout_DB',
    why: /names the Secret holding the value/,
    fix: /Secret's name/,
  },
  {
    title: 'env name starting with a digit',
    props: { container: { env: { '1DB': EnvValue.fromValue('x') } } },
    input: 'container.env.1DB',
    value: '1DB',
    why: /not a valid environment variable name/,
    fix: /"DATABASE_URL"/,
  },
  {
    title: 'env value that is not an EnvValue',
    props: { container: { env: { DB: 'postgres://u:p@db' as unknown as EnvValue } } },
    input: 'container.env.DB',
    value: 'postgres://u:p@db',
    why: /secret can never be written as a plain value/,
    fix: /EnvValue\.fromSecret/,
  },
  {
    title: 'command as a string',
    props: { container: { command: 'gunicorn app:app' as unknown as string[] } },
    input: 'container.command',
    value: 'gunicorn app:app',
    why: /without a shell, one argument per item/,
    fix: /write it as a list/,
  },
  {
    title: 'args as a string',
    props: { container: { args: '--workers 4' as unknown as string[] } },
    input: 'container.args',
    value: '--workers 4',
    why: /one argument per item/,
    fix: /write it as a list/,
  },
  {
    title: 'envFrom prefix starting with a digit',
    props: { container: { envFrom: [EnvFrom.configMap('checkout-config', '1_')] } },
    input: 'container.envFrom[0].prefix',
    value: '1_',
    why: /starts every variable name/,
    fix: /"DB_"/,
  },
  {
    title: 'hand-written rollwise.dev/ pod annotation',
    props: { pod: { annotations: { 'rollwise.dev/overrides': 'x' } } },
    input: 'pod.annotations.rollwise.dev/overrides',
    value: 'x',
    why: /trusted as a fact/,
    fix: /your own prefix/,
  },
  {
    title: 'workload label value too long',
    props: { metadata: { labels: { team: 'x'.repeat(64) } } },
    input: 'metadata.labels.team',
    value: 'x'.repeat(64),
    why: /at most 63/,
    fix: /move it to an annotation/,
  },
  {
    title: 'toleration Exists with a value',
    props: { pod: { tolerations: [{ key: 'dedicated', operator: 'Exists', value: 'web' }] } },
    input: 'pod.tolerations[0].value',
    value: 'web',
    why: /value must be empty/,
    fix: /remove value/,
  },
  {
    title: 'toleration with an unknown effect',
    props: { pod: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoScheduling' }] } },
    input: 'pod.tolerations[0].effect',
    value: 'NoScheduling',
    why: /not a taint effect/,
    fix: /"NoSchedule"/,
  },
  {
    title: 'affinity with an unknown field',
    props: { pod: { affinity: { nodeSelector: { pool: 'web' } } as never } },
    input: 'pod.affinity',
    value: '{"nodeSelector":{"pool":"web"}}',
    why: /pruned by the API server/,
    fix: /nodeAffinity/,
  },
  {
    title: 'mount of an undeclared volume',
    props: { container: { mounts: [{ volume: 'tls', path: '/etc/tls' }] } },
    input: 'container.mounts[0].volume',
    value: 'tls',
    why: /not one of pod\.volumes/,
    fix: /declare it in pod\.volumes/,
  },
  {
    title: 'mount over /tmp',
    props: {
      pod: { volumes: [Volume.fromSecret('tls', 'checkout-tls')] },
      container: { mounts: [{ volume: 'tls', path: '/tmp' }] },
    },
    input: 'container.mounts[0].path',
    value: '/tmp',
    why: /already the writable scratch space/,
    fix: /"\/etc\/tls"/,
  },
  {
    title: 'volume named tmp',
    props: { pod: { volumes: [Volume.emptyDir('tmp')] } },
    input: 'pod.volumes[0].name',
    value: 'tmp',
    why: /writable \/tmp rollwise mounts/,
    fix: /short name/,
  },
  {
    title: 'emptyDir without a binary unit',
    props: { pod: { volumes: [Volume.emptyDir('cache', { sizeLimit: '1G' })] } },
    input: 'pod.volumes[0].sizeLimit',
    value: '1G',
    why: /binary unit/,
    fix: /"256Mi"/,
  },
  {
    title: 'extra port on the main port',
    props: { container: { ports: [{ name: 'metrics', port: 8080 }] } },
    input: 'container.ports[0]',
    value: 'metrics:8080',
    why: /already used in the pod/,
    fix: /own name and number/,
  },
  {
    title: 'extra port name too long',
    props: { container: { ports: [{ name: 'prometheus-metrics', port: 9090 }] } },
    input: 'container.ports[0].name',
    value: 'prometheus-metrics',
    why: /at most 15/,
    fix: /"metrics"/,
  },
  {
    title: 'service account that is not an object name',
    props: { pod: { serviceAccount: { name: 'Checkout_API' } } },
    input: 'pod.serviceAccount.name',
    value: 'Checkout_API',
    why: /ServiceAccount/,
    fix: /ServiceAccount's name/,
  },
  {
    title: 'token mounted without a reason',
    props: { pod: { serviceAccount: { name: 'checkout-api', mountToken: { value: true, because: 'needed' } } } },
    input: 'pod.serviceAccount.mountToken',
    value: 'true',
    why: /must carry its reason.*No service-account token mounted/,
    fix: /add because:/,
  },
  {
    title: 'image pull secret with upper case',
    props: { pod: { imagePullSecrets: ['GHCR'] } },
    input: 'pod.imagePullSecrets[0]',
    value: 'GHCR',
    why: /docker-registry Secret/,
    fix: /"ghcr-pull"/,
  },
  {
    title: 'pod label that replaces the selector label',
    props: { pod: { labels: { 'app.kubernetes.io/name': 'other' } } },
    input: 'pod.labels.app.kubernetes.io/name',
    value: 'other',
    why: /select pods by it/,
    fix: /remove app\.kubernetes\.io\/name/,
  },
  {
    title: 'node selector value with a space',
    props: { pod: { nodeSelector: { disk: 'ssd fast' } } },
    input: 'pod.nodeSelector.disk',
    value: 'ssd fast',
    why: /not a label value/,
    fix: /shorten it/,
  },
  {
    title: 'priority class with upper case',
    props: { pod: { priorityClassName: 'Critical' } },
    input: 'pod.priorityClassName',
    value: 'Critical',
    why: /PriorityClass/,
    fix: /"business-critical"/,
  },
  {
    title: 'hand-written rollwise.dev/ annotation',
    props: { metadata: { annotations: { 'rollwise.dev/readiness-p99-seconds': '0.01' } } },
    input: 'metadata.annotations.rollwise.dev/readiness-p99-seconds',
    value: '0.01',
    why: /trusted as a fact/,
    fix: /your own prefix/,
  },
  {
    title: 'sidecar named like the app',
    props: { sidecars: [{ ...sidecar, name: 'app' }] },
    input: 'sidecars[0].name',
    value: 'app',
    why: /"app" is the main container/,
    fix: /"cloud-sql-proxy"/,
  },
  {
    title: 'sidecar image :latest',
    props: { sidecars: [{ ...sidecar, image: 'ghcr.io/acme/proxy:latest' }] },
    input: 'sidecars[0].image',
    value: 'ghcr.io/acme/proxy:latest',
    why: /no tag or uses "latest"/,
    fix: /proxy:1\.2\.3/,
  },
  {
    title: 'sidecar memory without unit',
    props: { sidecars: [{ ...sidecar, resources: { cpu: '100m', memory: '64' } }] },
    input: 'sidecars[0].resources.memory',
    value: '64',
    why: /below 16Mi/,
    fix: /"64Mi"/,
  },
  {
    title: 'sidecar port on the main port',
    props: { sidecars: [{ ...sidecar, port: { name: 'proxy', port: 8080 } }] },
    input: 'sidecars[0].port',
    value: 'proxy:8080',
    why: /share one network namespace/,
    fix: /its own port/,
  },
  {
    title: 'init container with a port',
    props: { initContainers: [{ ...sidecar, port: { name: 'x', port: 9000 } } as typeof sidecar] },
    input: 'initContainers[0].port',
    value: '{"name":"x","port":9000}',
    why: /runs to completion/,
    fix: /move it to sidecars/,
  },
  {
    title: 'sleep action on Kubernetes 1.28',
    props: { container: { shutdownDelay: ShutdownDelay.sleepAction() } },
    input: 'container.shutdownDelay',
    value: 'ShutdownDelay.sleepAction()',
    why: /only from Kubernetes 1\.30.*kubernetesVersion is 1\.28/,
    fix: /KubernetesVersion\.V1_33/,
  },
  {
    title: 'distroless image with the exec sleep default',
    props: { image: 'gcr.io/acme/checkout-distroless:1.4.2' },
    input: 'platform.shutdownDelay',
    value: 'ShutdownDelay.execSleep() (platform default for Kubernetes 1.28)',
    why: /no sleep binary.*FailedPreStopHook/,
    fix: /ShutdownDelay\.httpGet/,
  },
  {
    title: 'unsupported Kubernetes version',
    build: () => KubernetesVersion.of('1.30'),
    input: 'platform.kubernetesVersion',
    value: '1.30',
    why: /pinned OpenAPI schema/,
    fix: /V1_28 for 1\.28-1\.32/,
  },
  {
    title: 'route on a rolling update without a platform gateway',
    props: { delivery: Delivery.rollingUpdate(), platform: Platform.defaults() },
    input: 'platform.gateway',
    value: 'unset',
    why: /the route needs it/,
    fix: /or remove route/,
  },
  {
    title: 'route without hostnames on a rolling update',
    props: { delivery: Delivery.rollingUpdate(), route: { hostnames: [] } },
    input: 'route',
    value: '{"hostnames":[]}',
    why: /capture every host/,
    fix: /hostnames/,
  },
  {
    title: 'zero replicas',
    props: { replicas: 0 },
    input: 'replicas',
    value: '0',
    why: /cannot survive a node drain/,
    fix: /at least 2 replicas/,
  },
  {
    title: 'negative replicas',
    props: { replicas: -3 },
    input: 'replicas',
    value: '-3',
    why: /whole number from 2/,
    fix: /at least 2 replicas/,
  },
  {
    title: 'fractional replicas',
    props: { replicas: 2.5 },
    input: 'replicas',
    value: '2.5',
    why: /whole number/,
    fix: /replicas/,
  },
  {
    title: 'port 0',
    props: { port: 0 },
    input: 'port',
    value: '0',
    why: /from 1 to 65535/,
    fix: /port your server binds to/,
  },
  {
    title: 'port above 65535',
    props: { port: 70000 },
    input: 'port',
    value: '70000',
    why: /from 1 to 65535/,
    fix: /e\.g\. 8080/,
  },
  {
    title: 'malformed CPU',
    props: { resources: { cpu: '250mc', memory: '512Mi' } },
    input: 'resources.cpu',
    value: '250mc',
    why: /not a positive Kubernetes CPU quantity/,
    fix: /"250m"/,
  },
  {
    title: 'zero CPU',
    props: { resources: { cpu: '0', memory: '512Mi' } },
    input: 'resources.cpu',
    value: '0',
    why: /positive/,
    fix: /millicores/,
  },
  {
    title: 'malformed memory',
    props: { resources: { cpu: '250m', memory: '512MB' } },
    input: 'resources.memory',
    value: '512MB',
    why: /not a Kubernetes memory quantity/,
    fix: /"512Mi"/,
  },
  {
    title: 'memory without unit',
    props: { resources: { cpu: '250m', memory: '512' } },
    input: 'resources.memory',
    value: '512',
    why: /below 16Mi.*OOM-killed/,
    fix: /"512Mi"/,
  },
  {
    title: 'p99 too slow for a probe',
    props: { health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.seconds(6) } },
    input: 'health.readinessP99UnderLoad',
    value: '6 s',
    why: /would not fit below the 10 s probe period/,
    fix: /local memory read/,
  },
  {
    title: 'readiness calls a dependency',
    props: { health: { readinessPath: '/healthz', readinessCallsDependency: true } },
    input: 'health.readinessCallsDependency',
    value: 'true',
    why: /every replica fail at the same moment/,
    fix: /local state only/,
  },
  {
    title: 'override without a reason',
    props: { overrides: { cpuLimit: { value: '500m', because: '' } } },
    input: 'overrides.cpuLimit',
    value: '500m',
    why: /must carry its reason/,
    fix: /add because:/,
  },
  {
    title: 'override with a placeholder reason',
    props: { overrides: { pdbMaxUnavailable: { value: 3, because: 'ok' } } },
    input: 'overrides.pdbMaxUnavailable',
    value: '3 pod(s)',
    why: /"ok" is shorter than 10 characters/,
    fix: /add because:/,
  },
  {
    title: 'name that is not a DNS label',
    id: 'Checkout_API',
    input: 'name',
    value: 'Checkout_API',
    why: /must be a DNS label/,
    fix: /"checkout-api"/,
  },
  {
    title: 'name starting with a digit',
    id: '1checkout',
    input: 'name',
    value: '1checkout',
    why: /starting with a letter/,
    fix: /use a name like/,
  },
  {
    title: 'image without tag',
    props: { image: 'ghcr.io/acme/checkout-api' },
    input: 'image',
    value: 'ghcr.io/acme/checkout-api',
    why: /no tag or uses "latest"/,
    fix: /pin a version tag/,
  },
  {
    title: 'image :latest',
    props: { image: 'ghcr.io/acme/checkout-api:latest' },
    input: 'image',
    value: 'ghcr.io/acme/checkout-api:latest',
    why: /git revert/,
    fix: /checkout-api:1\.4\.2/,
  },
  {
    title: 'readiness path without slash',
    props: { health: { readinessPath: 'healthz' } },
    input: 'health.readinessPath',
    value: 'healthz',
    why: /must start with "\/"/,
    fix: /"\/healthz"/,
  },
  {
    title: 'liveness on the readiness path',
    props: { health: { readinessPath: '/healthz', livenessPath: '/healthz' } },
    input: 'health.livenessPath',
    value: '/healthz',
    why: /turns load into restarts/,
    fix: /process-only handler/,
  },
  {
    title: 'too few replicas for the peak',
    props: { replicas: 11 },
    input: 'replicas',
    value: '11',
    why: /no headroom at peak/,
    fix: /scale out first: set replicas to at least 12/,
  },
  {
    title: 'negative peak',
    props: { capacity: { peakRequestsPerSecond: -1, saturationRequestsPerSecondPerReplica: 450 } },
    input: 'capacity.peakRequestsPerSecond',
    value: '-1',
    why: /above 0/,
    fix: /measured peak/,
  },
  {
    title: 'timeout override below the p99',
    props: {
      health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(1500) },
      overrides: { readinessTimeout: { value: Duration.seconds(1), because: 'copied from the old chart values' } },
    },
    input: 'overrides.readinessTimeout',
    value: '1 s',
    why: /not above the health path's p99 under load \(1\.5 s\)/,
    fix: /at least 3 s/,
  },
  {
    title: 'startup budget of zero',
    props: { health: { readinessPath: '/healthz', startupBudget: Duration.seconds(0) } },
    input: 'health.startupBudget',
    value: '0 ms',
    why: /between 15 s and 3600 s.*fewer than 3 attempts/,
    fix: /longest start you observed/,
  },
  {
    title: 'CPU limit below the request',
    props: { overrides: { cpuLimit: { value: '100m', because: 'match the namespace LimitRange' } } },
    input: 'overrides.cpuLimit',
    value: '100m',
    why: /below the CPU request 250m/,
    fix: /at least 250m/,
  },
  {
    title: 'PDB override that blocks drains',
    props: { overrides: { pdbMaxUnavailable: { value: 0, because: 'never lose a pod during drains' } } },
    input: 'overrides.pdbMaxUnavailable',
    value: '0',
    why: /0 blocks every node drain forever/,
    fix: /use 1/,
  },
  {
    title: 'utilisation ceiling at saturation',
    build: () => new Platform({ peakUtilisationCeiling: { value: 1, because: 'we trust the load test fully' } }),
    input: 'platform.peakUtilisationCeiling',
    value: '1',
    why: /queueing delay is unbounded/,
    fix: /use 0\.8/,
  },
  // issue 22 (adversarial catalogue, b): each named a derived value, no input, or had no fix
  {
    title: "a 2 MiB environment value (the object above etcd's limit) names the variable",
    build: () =>
      synthApp((a) =>
        webIn(a, 'c', (p) => {
          p.container = { env: { BIG: EnvValue.fromValue('x'.repeat(2 * 1024 * 1024)) } };
        }),
      ),
    input: 'container.env.BIG',
    value: `${'x'.repeat(200)}... (2097152 characters)`,
    why: /above etcd's 1\.5 MiB request limit/,
    fix: /give container\.env\.BIG a value the cluster accepts/,
  },
  {
    title: 'an Argo CD namespace that is not a DNS label names argoCd.namespace',
    build: () =>
      new Platform({ argoCd: { repoURL: 'https://github.com/acme/deploy.git', path: 'dist', namespace: 'Argo CD' } }),
    input: 'platform.argoCd.namespace',
    value: 'Argo CD',
    why: /DNS label/,
    fix: /"argocd"/,
  },
  {
    title: 'the keep-alive race is named as overrides.proxyIdleTimeout',
    build: () =>
      webIn(new App(), 'c', (p) =>
        Object.assign(p, {
          route: { hostnames: ['web.example.com'] },
          overrides: {
            proxyIdleTimeout: { value: Duration.seconds(10), because: 'the load balancer in front keeps 10 s' },
          },
        }),
      ),
    input: 'overrides.proxyIdleTimeout',
    value: '10 s',
    why: /closes it after 5 s/,
    fix: /overrides\.acceptKeepAliveRace: \{ value: true/,
  },
  {
    title: 'Sizing.fixed(1) names Sizing.fixed',
    build: () => Sizing.fixed(1),
    input: 'Sizing.fixed(replicas)',
    value: '1',
    why: /whole number from 2 to 1000.*cannot survive a node drain/,
    fix: /Sizing\.fixed\(2\)/,
  },
  {
    title: 'Sizing.fixed(0)',
    build: () => Sizing.fixed(0),
    input: 'Sizing.fixed(replicas)',
    value: '0',
    why: /from 2/,
    fix: /at least 2/,
  },
  {
    title: 'Sizing.fixed(2.5)',
    build: () => Sizing.fixed(2.5),
    input: 'Sizing.fixed(replicas)',
    value: '2.5',
    why: /whole number/,
    fix: /at least 2/,
  },
  {
    title: 'an environment adjust that returns null names adjust',
    build: () => environment({ adjust: () => null as never }).serviceProps('web-front', webFront()),
    input: 'environments.dev.adjust',
    value: 'null',
    why: /returned null for service web-front, not its props/,
    fix: /return statement/,
  },
  {
    title: 'a custom sizing that returns nothing names Sizing.custom',
    build: () =>
      environment({ sizing: Sizing.custom('half the memory in dev', () => undefined as never) }).serviceProps(
        'web-front',
        webFront(),
      ),
    input: 'Sizing.custom("half the memory in dev", adjust)',
    value: 'undefined',
    why: /returned nothing for service web-front/,
    fix: /return the props/,
  },
  {
    title: 'an empty service id (constructs refused it without naming the input)',
    build: () => new HttpService(new Chart(new App(), 'c', { namespace: 'shop' }), '', webFront()),
    input: 'name',
    value: '"" (empty)',
    why: /must be a DNS label/,
    fix: /use a name like/,
  },
  {
    title: 'an HttpService outside a chart',
    build: () => new HttpService(new App(), 'web-front', webFront()),
    input: 'scope',
    value: 'the app itself',
    why: /not inside a cdk8s Chart/,
    fix: /new HttpService\(new Chart\(app, 'web-front'/,
  },
  {
    title: 'a layout path above the output folder names layout',
    build: () => synthApp((a) => webIn(a), { layout: SynthLayout.custom(() => '../../escape.k8s.yaml') }),
    input: 'layout',
    value: '../../escape.k8s.yaml',
    why: /the file of chart c .* must be a relative file path inside the output folder/,
    fix: /without a leading "\/" or "\.\."/,
  },
  {
    title: 'an absolute layout path',
    build: () => synthApp((a) => webIn(a), { layout: SynthLayout.custom(() => '/tmp/x.k8s.yaml') }),
    input: 'layout',
    value: '/tmp/x.k8s.yaml',
    why: /inside the output folder/,
    fix: /prod\/x\.k8s\.yaml/,
  },
  {
    title: 'a layout path onto the output marker',
    build: () => synthApp((a) => webIn(a), { layout: SynthLayout.custom(() => '.rollwise-output') }),
    input: 'layout',
    value: '.rollwise-output',
    why: /the marker synth writes/,
    fix: /another file name/,
  },
  {
    title: 'two charts laid out to one file get a fix',
    build: () =>
      synthApp(
        (a) => {
          webIn(a, 'a');
          webIn(a, 'b');
        },
        { layout: SynthLayout.custom(() => 'all.k8s.yaml') },
      ),
    input: 'layout',
    value: 'all.k8s.yaml',
    why: /two outputs write all\.k8s\.yaml: chart a and chart b/,
    fix: /give each chart its own file/,
  },
  {
    title: 'an output file extension with a slash names outputFileExtension, not a runbook path',
    build: () => synthApp((a) => webIn(a), { outputFileExtension: '/../../x' }),
    input: 'outputFileExtension',
    value: '/../../x',
    why: /without "\/"/,
    fix: /"\.k8s\.yaml"/,
  },
  {
    title: 'a Lazy in an escape-hatch patch is named as never produced',
    build: () =>
      synthApp((a) =>
        webIn(a).workload.addJsonPatch(
          JsonPatch.add(
            '/metadata/annotations/x',
            Lazy.any({
              produce: () => {
                throw new Error('never called');
              },
            }),
          ),
        ),
      ),
    input: "c/web-front/deployment.addJsonPatch(JsonPatch.add('/metadata/annotations/x', ...))",
    value: 'a Lazy',
    why: /never produced.*Deployment\/web-front metadata\.annotations\.x would hold the Lazy object itself/,
    fix: /object's own props/,
  },
  {
    title: 'a chart toJson() that returns no list',
    build: () =>
      synthApp((a) => {
        const s = webIn(a);
        (Chart.of(s) as { toJson: () => unknown }).toJson = () => ({ not: 'a list' });
      }),
    input: 'c.toJson()',
    value: '{"not":"a list"}',
    why: /returned an object, not the list of objects/,
    fix: /return a list of Kubernetes objects/,
  },
  {
    title: 'an ApiObject added under a service is still fine; a chart toJson() list of non-objects is not',
    build: () =>
      synthApp((a) => {
        const s = webIn(a);
        new ApiObject(s, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
        (Chart.of(s) as { toJson: () => unknown }).toJson = () => [null];
      }),
    input: 'c.toJson()[0]',
    value: 'null',
    why: /is null, not a Kubernetes object/,
    fix: /super\.toJson\(\)/,
  },
];

describe('bad-input catalogue', () => {
  test('has at least 15 cases', () => expect(cases.length).toBeGreaterThanOrEqual(15));

  test.each(cases.map((c) => [c.title, c] as const))('%s', (_title, c) => {
    let error: unknown;
    try {
      if (c.build) c.build();
      else synthService({ ...base, ...c.props }, c.id ?? 'checkout-api');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RollwiseInputError);
    const e = error as RollwiseInputError;
    expect(e.input).toBe(c.input);
    expect(e.value).toBe(c.value);
    expect(e.message).toContain(`${c.input} = ${c.value}`);
    expect(e.why).toMatch(c.why);
    expect(e.fix).toMatch(c.fix);
    expect(e.message).toContain('Fix: ');
  });
});
