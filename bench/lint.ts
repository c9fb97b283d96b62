import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import * as YAML from 'yaml';
import { readTextCapped } from '../src/read-limit';
import { findKustomize, layoutScan } from '../src/rules/layout';
import { lintLayout, runLintCli } from '../src/rules/run-lint';
import { setFastYamlForBench } from '../src/rules/fast-yaml';
import { verdict } from './synth';
import { scanFolder } from '../src/rules/scan';
import { median } from './stats';

/** One service's manifests (Deployment or Rollout, Service, HTTPRoute, PDB, policy, analysis), some with hazards. */
function serviceObjects(i: number): Record<string, unknown>[] {
  const name = `svc-${i}`;
  const ns = `team-${i % 17}`;
  const labels = { 'app.kubernetes.io/name': name };
  const hazard = i % 3 === 0;
  const container = {
    name: 'app',
    image: `ghcr.io/acme/${name}:1.${i % 10}.0`,
    ports: [{ name: 'http', containerPort: 8080 }],
    resources: {
      requests: { cpu: '250m', memory: '512Mi' },
      limits: hazard ? { cpu: '500m', memory: '512Mi' } : { memory: '512Mi' },
    },
    readinessProbe: {
      httpGet: { path: '/healthz', port: 'http' },
      timeoutSeconds: hazard ? 1 : 3,
      periodSeconds: 10,
      failureThreshold: hazard ? 1 : 3,
      successThreshold: hazard ? 1 : 3,
    },
    livenessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 6, periodSeconds: 20, failureThreshold: 6 },
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'PORT', value: '8080' },
    ],
  };
  const metadata = {
    name,
    namespace: ns,
    labels,
    annotations: {
      'rollwise.dev/readiness-p99-seconds': '0.25',
      'rollwise.dev/peak-rps': '900',
      'rollwise.dev/saturation-rps-per-replica': '200',
    },
  };
  const template = { metadata: { labels }, spec: { containers: [container], terminationGracePeriodSeconds: 30 } };
  const workload =
    i % 4 === 0
      ? {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Rollout',
          metadata,
          spec: {
            replicas: 6,
            minReadySeconds: 30,
            progressDeadlineAbort: !hazard,
            selector: { matchLabels: labels },
            template,
            strategy: {
              canary: {
                canaryService: `${name}-canary`,
                stableService: name,
                maxUnavailable: 0,
                steps: [
                  { setWeight: 5 },
                  { pause: { duration: '10m' } },
                  { setWeight: 25 },
                  ...(hazard ? [] : [{ analysis: { templates: [{ templateName: `${name}-errors` }] } }]),
                ],
              },
            },
          },
        }
      : {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata,
          spec: {
            replicas: 6,
            minReadySeconds: hazard ? 0 : 30,
            strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: hazard ? '25%' : 0 } },
            selector: { matchLabels: labels },
            template,
          },
        };
  return [
    workload,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns, labels, annotations: { 'rollwise.dev/app-keepalive-seconds': '5' } },
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name, namespace: ns },
      spec: {
        parentRefs: [{ name: 'public', namespace: 'gateway' }],
        hostnames: [`${name}.example.com`],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/' } }],
            backendRefs: [{ group: '', kind: 'Service', name, port: 80 }],
          },
        ],
      },
    },
    {
      apiVersion: 'gateway.envoyproxy.io/v1alpha1',
      kind: 'BackendTrafficPolicy',
      metadata: { name, namespace: ns },
      spec: {
        mergeType: 'StrategicMerge',
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name }],
        timeout: { http: { connectionIdleTimeout: hazard ? '10s' : '3s' } },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, namespace: ns },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: `${name}-errors`, namespace: ns },
      spec: {
        metrics: [
          {
            name: 'error-ratio',
            interval: '1m',
            count: 10,
            failureLimit: 1,
            successCondition: hazard ? 'result[0] < 0.01' : 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01',
            provider: {
              prometheus: {
                address: 'http://prometheus:9090',
                query: `sum(rate(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5",envoy_cluster_name="httproute/${ns}/${name}/rule/0"}[2m])) / sum(rate(envoy_cluster_upstream_rq_total{envoy_cluster_name="httproute/${ns}/${name}/rule/0"}[2m]))`,
              },
            },
          },
        ],
      },
    },
  ];
}

/** `count` objects as one multi-document YAML text, as `helm template` would print them. */
export function benchManifest(count: number): string {
  const objs: Record<string, unknown>[] = [];
  for (let i = 0; objs.length < count; i++) objs.push(...serviceObjects(i));
  return objs
    .slice(0, count)
    .map((o) => YAML.stringify(o, { version: '1.1' }))
    .join('---\n');
}

/** CPU ms of this process and of its waited-for children (kustomize renders), from /proc (Linux), else this process only. */
function cpuNow(): { self: number; children: number } {
  const c = process.cpuUsage();
  let children = 0;
  try {
    // fields after the command name: state is field 3; cutime and cstime are fields 16 and 17
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = ((Number(f[13]) + Number(f[14])) * 1000) / 100; // clock ticks at USER_HZ 100
  } catch {
    children = 0;
  }
  return { self: (c.user + c.system) / 1000, children };
}

/** Runs named measurements `reps` times, interleaved (the order reversed every other round, round 0 a warm-up): CPU and wall medians. */
function interleaved(
  rows: readonly (readonly [string, () => void])[],
  reps: number,
): { name: string; cpu: number; children: number; wall: number }[] {
  const cpu = rows.map(() => [] as number[]);
  const kids = rows.map(() => [] as number[]);
  const wall = rows.map(() => [] as number[]);
  for (let r = 0; r < reps + 1; r++) {
    const order = rows.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      (globalThis as { gc?: () => void }).gc?.();
      const c0 = cpuNow();
      const t0 = performance.now();
      rows[i][1]();
      const dt = performance.now() - t0;
      const c1 = cpuNow();
      if (r > 0) {
        cpu[i].push(c1.self - c0.self);
        kids[i].push(c1.children - c0.children);
        wall[i].push(dt);
      }
    }
  }
  return rows.map(([name], i) => ({ name, cpu: median(cpu[i]), children: median(kids[i]), wall: median(wall[i]) }));
}

/**
 * `rollwise lint <paths> [--no-kustomize] --fail-on none`: the function the command calls
 * (src/cli/main.ts -> runLintCli -> runLint: scan, read, layout, lintLayout (every rule and the
 * cluster's validation, withClusterFindings), the text report), its output dropped.
 */
function rollwiseLint(paths: string[], opts: { kustomize?: boolean } = {}): number {
  let out = '';
  runLintCli(
    paths,
    { format: 'text', failOn: 'none', kustomize: opts.kustomize ?? false },
    (x) => {
      out += x;
    },
    () => undefined,
  );
  return out.length;
}

/** The same with lint's own YAML reader off (src/rules/fast-yaml.ts): every text read by the yaml package. */
function withPackageReader(f: () => void): () => void {
  return () => {
    setFastYamlForBench(false);
    try {
      f();
    } finally {
      setFastYamlForBench(true);
    }
  };
}

/**
 * `rollwise lint <file>` on 10,000 objects (one multi-document file, as `helm template > out.yaml`
 * writes it) against reading and parsing the same file with the `yaml` package, side by side
 * (interleaved, medians). The parts of lint are timed in the same rounds, and lint with its own
 * reader off. Target: lint <= 1.1 x parse (CPU time).
 */
export async function benchLint(count = 10_000, reps = Number(process.env.BENCH_REPS ?? 5)): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-lint-'));
  const file = path.join(dir, 'rendered.yaml');
  fs.writeFileSync(file, benchManifest(count));
  const size = fs.statSync(file).size;
  let layout: ReturnType<typeof layoutScan> | undefined;
  let findings = 0;
  let objects = 0;
  const read = () => {
    layout = layoutScan([{ file, text: readTextCapped(file) }], { kustomize: null, repoRoot: dir });
    objects = layout.objects.length;
  };
  let rows: ReturnType<typeof interleaved>;
  try {
    rows = interleaved(
      [
        [
          'read (fs.readFileSync) + yaml parseAllDocuments + toJS (parse)',
          () => {
            for (const d of YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'), { version: '1.1' })) d.toJS();
          },
        ],
        [
          'rollwise lint <file> (what the command does)',
          () => {
            rollwiseLint([file]);
          },
        ],
        ['  of which: read, with line positions (layout)', read],
        [
          "  of which: rules + the cluster's validation (lintLayout)",
          () => {
            findings = lintLayout(layout!, layout!.problems).findings.length;
          },
        ],
        [
          'rollwise lint <file>, own reader off (the yaml package reads)',
          withPackageReader(() => {
            rollwiseLint([file]);
          }),
        ],
      ],
      reps,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const p = rows[0].cpu;
  const wp = rows[0].wall;
  const ratio = rows[1].cpu / p;
  return [
    `\`rollwise lint <file>\` on ${objects} objects in one file (${(size / 1e6).toFixed(1)} MB YAML, ${findings} findings), median of ${reps} interleaved runs (after a warm-up round), load average ${os.loadavg()[0].toFixed(1)}:`,
    '',
    '| measurement | CPU ms (median) | vs parse | wall ms (median) | vs parse |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.cpu.toFixed(0)} | ${(r.cpu / p).toFixed(2)}x | ${r.wall.toFixed(0)} | ${(r.wall / wp).toFixed(2)}x |`,
    ),
    '',
    verdict(`lint of ${objects} objects / parsing them (CPU time)`, ratio, 1.1),
    `  with lint's own reader off (every text read by the yaml package): ${(rows[4].cpu / p).toFixed(2)} (${rows[4].cpu / p <= 1.1 ? 'would be met' : 'would NOT be met'} without it)`,
  ].join('\n');
}

/** A Kubernetes object as YAML, one per file as repositories keep them. */
const yamlOf = (o: unknown) => YAML.stringify(o, { version: '1.1' });

/**
 * A repository-like tree of about `files` files of mixed kinds: a folder per service with its
 * workload (Deployment or Rollout), Service, HTTPRoute, policy, PDB and analysis, and, as real
 * repositories have them, ConfigMaps, ServiceAccounts, HPAs, NetworkPolicies, Roles and
 * RoleBindings, CronJobs, Ingresses, a Helm values file (not a Kubernetes object), now and then a
 * Helm template and a small CRD; every 17th service deployed by a kustomization that labels its
 * resources (so kustomize, where installed, renders it).
 */
export function benchTree(dir: string, files = 2000): { files: number; kustomizations: number; kinds: number } {
  let written = 0;
  let kustomizations = 0;
  const kinds = new Set<string>();
  for (let i = 0; written < files; i++) {
    const folder = path.join(dir, `team-${i % 17}`, `svc-${i}`);
    fs.mkdirSync(folder, { recursive: true });
    const name = `svc-${i}`;
    const ns = `team-${i % 17}`;
    const labels = { 'app.kubernetes.io/name': name };
    const extra: Record<string, unknown>[] = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-config`, namespace: ns, labels },
        data: { LOG_LEVEL: 'info', 'app.properties': `server.port=8080\nfeature.x=${i % 2 === 0}\n` },
      },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, labels } },
      ...(i % 2 === 0
        ? [
            {
              apiVersion: 'autoscaling/v2',
              kind: 'HorizontalPodAutoscaler',
              metadata: { name, namespace: ns },
              spec: {
                scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
                minReplicas: 6,
                maxReplicas: 20,
                metrics: [
                  {
                    type: 'Resource',
                    resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
                  },
                ],
              },
            },
          ]
        : []),
      ...(i % 3 === 0
        ? [
            {
              apiVersion: 'networking.k8s.io/v1',
              kind: 'NetworkPolicy',
              metadata: { name, namespace: ns },
              spec: {
                podSelector: { matchLabels: labels },
                policyTypes: ['Ingress'],
                ingress: [
                  {
                    from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'gateway' } } }],
                    ports: [{ protocol: 'TCP', port: 8080 }],
                  },
                ],
              },
            },
          ]
        : []),
      ...(i % 4 === 1
        ? [
            {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'Role',
              metadata: { name: `${name}-reader`, namespace: ns },
              rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
            },
            {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'RoleBinding',
              metadata: { name: `${name}-reader`, namespace: ns },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-reader` },
              subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
            },
          ]
        : []),
      ...(i % 5 === 2
        ? [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              metadata: { name: `${name}-cleanup`, namespace: ns },
              spec: {
                schedule: '17 3 * * *',
                jobTemplate: {
                  spec: {
                    template: {
                      spec: {
                        restartPolicy: 'OnFailure',
                        containers: [
                          {
                            name: 'cleanup',
                            image: `ghcr.io/acme/${name}:1.0.0`,
                            args: ['--cleanup', '--older-than=7d'],
                          },
                        ],
                      },
                    },
                  },
                },
              },
            },
          ]
        : []),
      ...(i % 6 === 3
        ? [
            {
              apiVersion: 'networking.k8s.io/v1',
              kind: 'Ingress',
              metadata: {
                name: `${name}-internal`,
                namespace: ns,
                annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '30' },
              },
              spec: {
                ingressClassName: 'internal',
                rules: [
                  {
                    host: `${name}.internal.example.com`,
                    http: {
                      paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }],
                    },
                  },
                ],
              },
            },
          ]
        : []),
    ];
    const names: string[] = [];
    const write = (file: string, text: string) => {
      fs.writeFileSync(path.join(folder, file), text);
      written++;
    };
    for (const o of [...serviceObjects(i), ...extra]) {
      if (written >= files) break;
      kinds.add(String(o.kind));
      const file = `${String(o.kind).toLowerCase()}.yaml`;
      write(file, yamlOf(o));
      names.push(file);
    }
    if (written < files && i % 3 === 1)
      write(
        'values.yaml',
        `replicaCount: 6\nimage:\n  repository: ghcr.io/acme/${name}\n  tag: "1.${i % 10}.0"\nresources:\n  requests:\n    cpu: 250m\n`,
      );
    if (written < files && i % 29 === 5)
      write(
        'helm-deployment.yaml',
        `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include "chart.fullname" . }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n  template:\n    spec:\n      containers:\n        - name: app\n          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"\n`,
      );
    if (written < files && i % 97 === 7) {
      kinds.add('CustomResourceDefinition');
      write(
        'crd.yaml',
        yamlOf({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `widgets${i}.acme.example.com` },
          spec: {
            group: 'acme.example.com',
            names: { kind: `Widget${i}`, plural: `widgets${i}`, singular: `widget${i}` },
            scope: 'Namespaced',
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: {
                  openAPIV3Schema: {
                    type: 'object',
                    description: 'A widget.\nIt has a size.',
                    properties: {
                      spec: {
                        type: 'object',
                        properties: {
                          size: { type: 'integer', minimum: 1, maximum: 100, description: 'How big.' },
                          color: { type: 'string', enum: ['red', 'green', 'blue'] },
                        },
                      },
                    },
                  },
                },
              },
            ],
          },
        }),
      );
    }
    if (i % 17 === 0 && written < files) {
      write(
        'kustomization.yaml',
        `labels:\n- pairs: { team: team-${i % 17} }\nresources:\n${names.map((n) => `- ${n}`).join('\n')}\n`,
      );
      kustomizations++;
    }
  }
  return { files: written, kustomizations, kinds: kinds.size };
}

/**
 * `rollwise lint <folder>` on a generated repository of about 2,000 files of mixed kinds against
 * reading and parsing the same files with the `yaml` package, side by side (interleaved, medians).
 * Lint runs the folder scan, the layout (kustomization graph, scopes), every rule, the cluster's
 * validation and the report. Kustomizations are linted file by file (the target); with kustomize
 * found on PATH, lint is also timed rendering them: the renders are child processes, so their CPU
 * time is reported on its own.
 */
export async function benchLintFolder(files = 2000, reps = Number(process.env.BENCH_REPS ?? 5)): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-tree-'));
  try {
    const tree = benchTree(dir, files);
    const kustomize = findKustomize();
    const sources = () => scanFolder(dir).files.map((f) => ({ file: f, text: readTextCapped(f) }));
    let found = 0;
    const rows: [string, () => void][] = [
      // logLevel error: toJS of a Helm template's `{{ ... }}` key would print a warning per file (lint prints none)
      [
        'read (fs.readFileSync) + yaml parseAllDocuments + toJS (parse)',
        () => {
          for (const f of scanFolder(dir).files)
            for (const d of YAML.parseAllDocuments(fs.readFileSync(f, 'utf8'), { version: '1.1', logLevel: 'error' }))
              d.toJS();
        },
      ],
      [
        'rollwise lint <folder> --no-kustomize (what the command does)',
        () => {
          rollwiseLint([dir], { kustomize: false });
        },
      ],
      [
        '  of which: scan, read, layout (kustomization graph, scopes)',
        () => {
          layoutScan(sources(), { kustomize: null, repoRoot: dir });
        },
      ],
      [
        "  of which: rules + the cluster's validation (lintLayout; includes scan, read and layout again)",
        () => {
          const layout = layoutScan(sources(), { kustomize: null, repoRoot: dir });
          found = lintLayout(layout, layout.problems).findings.length;
        },
      ],
      [
        'rollwise lint <folder> --no-kustomize, own reader off (the yaml package reads)',
        withPackageReader(() => {
          rollwiseLint([dir], { kustomize: false });
        }),
      ],
      ...(kustomize
        ? [
            [
              `rollwise lint <folder>, rendered with ${kustomize.label}`,
              () => {
                rollwiseLint([dir], { kustomize: true });
              },
            ] as [string, () => void],
          ]
        : []),
    ];
    const r = interleaved(rows, reps);
    const p = r[0].cpu;
    const wp = r[0].wall;
    const ratio = r[1].cpu / p;
    return [
      `\`rollwise lint\` of a generated repository of ${tree.files} files (${tree.kinds} kinds, values files, Helm templates, ${tree.kustomizations} kustomizations; ${found} findings), median of ${reps} interleaved runs (after a warm-up round), load average ${os.loadavg()[0].toFixed(1)}. CPU time is this process; kustomize renders run in child processes, whose CPU time is its own column. The "of which" rows are the parts timed alone (the second includes reading and the layout again).`,
      '',
      '| measurement | CPU ms (median) | vs parse | child processes CPU ms | wall ms (median) | vs parse |',
      '|---|---:|---:|---:|---:|---:|',
      ...r.map(
        (x) =>
          `| ${x.name} | ${x.cpu.toFixed(0)} | ${(x.cpu / p).toFixed(2)}x | ${x.children.toFixed(0)} | ${x.wall.toFixed(0)} | ${(x.wall / wp).toFixed(2)}x |`,
      ),
      '',
      verdict(`lint of ${tree.files} mixed files / parsing them (CPU time, kustomizations file by file)`, ratio, 1.3),
      `  with lint's own reader off (every text read by the yaml package): ${(r[4].cpu / p).toFixed(2)} (${r[4].cpu / p <= 1.3 ? 'would be met' : 'would NOT be met'} without it)`,
      ...(kustomize
        ? [
            `Rendering the kustomizations with ${kustomize.label} adds ${(r[r.length - 1].cpu - r[1].cpu).toFixed(0)} ms of this process and ${r[r.length - 1].children.toFixed(0)} ms of child processes (CPU), ${(r[r.length - 1].wall - r[1].wall).toFixed(0)} ms of wall time.`,
          ]
        : []),
    ].join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchLint().then(
    (t) => process.stdout.write(`${t}\n`),
    (e) => {
      process.stderr.write(`${String(e)}\n`);
      process.exit(1);
    },
  );
}
