/*
 * Held-out set 9, judged (issue 21 round 10): the findings its judge called wrong, each with the
 * public shape it came from and a near miss that must still be reported.
 */
import { Finding, lintText, runLint } from '../../src/rules';
import { tempRepo } from './helpers';

/** `rollwise lint` on a folder holding one file (the cluster stage included). */
function lintFile(name: string, text: string): Finding[] {
  let out = '';
  runLint({
    paths: [tempRepo('rw-set9-', { [name]: text })],
    format: 'json',
    failOn: 'none',
    kustomize: false,
    write: (s) => {
      out += s;
    },
    readStdin: () => '',
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings;
}

const open = (f: Finding[]): Finding[] => f.filter((x) => x.status === 'open');
const of = (f: Finding[], id: string): Finding[] => open(f).filter((x) => x.ruleId.startsWith(id));

/** Altinity/clickhouse-operator deploy/operator/clickhouse-operator-install-ansible.yaml (Ansible fills it in). */
const ANSIBLE = `# Setup ServiceAccount
apiVersion: v1
kind: ServiceAccount
metadata:
  name: clickhouse-operator
  namespace: {{ namespace }}
  labels:
    clickhouse.altinity.com/chop: 0.25.6
`;

describe('RW000 on documents with {{ ... }} / ${...} fill-ins (held-out set 9)', () => {
  it('a {{ namespace }} fill-in that breaks the YAML is info: a template, not checked', () => {
    const f = of(lintText(ANSIBLE, 'deploy/operator/clickhouse-operator-install-ansible.yaml').findings, 'RW000');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('info');
    expect(f[0].line).toBe(6);
    expect(f[0].message).toMatch(/fill-in \{\{ namespace \}\}.*template.*not checked/);
  });

  it('a ${NAMESPACE} fill-in in a flow mapping is info too', () => {
    const text = 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: ${NAMESPACE}}}\n';
    const f = of(lintText(text, 'sa.yaml').findings, 'RW000');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('info');
  });

  it('near miss: a real syntax error elsewhere in the same file stays an error', () => {
    const broken = `${ANSIBLE}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  ports: [80\n`;
    const f = of(lintText(broken, 'clickhouse-operator-install-ansible.yaml').findings, 'RW000');
    expect(f.map((x) => x.severity).sort()).toEqual(['error', 'info']);
  });

  it("near miss: Argo Rollouts' unquoted {{args.x}} (stored as written by kubectl) stays an error", () => {
    const text =
      'apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: l\n' +
      '  annotations:\n    linkerd.io/inject: {{args.linkerd-enabled}}\n';
    const f = of(lintText(text, 'rollout-linkerd.yaml').findings, 'RW000');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('error');
  });
});

/** Altinity/clickhouse-operator deploy/zookeeper/zookeeper-manually/.../zookeeper-1-node.yaml shape. */
const zookeeper = (timeout: number): string => `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: zookeeper
spec:
  replicas: 1
  serviceName: zookeepers
  selector:
    matchLabels: {app: zookeeper}
  template:
    metadata:
      labels: {app: zookeeper}
    spec:
      containers:
        - name: kubernetes-zookeeper
          image: docker.io/zookeeper:3.8.4
          ports: [{containerPort: 2181, name: client}]
          resources:
            requests: {cpu: "1", memory: 512M}
            limits: {cpu: "2", memory: 4Gi}
          readinessProbe:
            exec: {command: [/conf/zookeeperReady.sh]}
            initialDelaySeconds: 10
            timeoutSeconds: ${timeout}
            periodSeconds: 10
          livenessProbe:
            exec: {command: [/conf/zookeeperLive.sh]}
            initialDelaySeconds: 10
            timeoutSeconds: ${timeout}
            periodSeconds: 10
---
apiVersion: v1
kind: Service
metadata:
  name: zookeeper
spec:
  selector: {app: zookeeper}
  ports: [{name: client, port: 2181}]
`;

describe('RW201 only where a probe can miss its deadline under the quota (held-out set 9)', () => {
  it('ZooKeeper with 30 s probe timeouts under a 2-core limit is not reported', () => {
    expect(of(lintText(zookeeper(30), 'zookeeper-1-node.yaml').findings, 'RW201')).toEqual([]);
  });
  it('near miss: the same pod with the default 1 s timeout is info (one replica)', () => {
    const f = of(lintText(zookeeper(1), 'zookeeper-1-node.yaml').findings, 'RW201');
    expect(f.map((x) => x.severity)).toEqual(['info']);
  });
});

describe('RW801 on all-null skeletons (held-out set 9)', () => {
  /** eficode-academy/kubernetes-katas services/start/backend-svc.yaml: an exercise to fill in. */
  const SKELETON = `apiVersion: v1
kind: Service
metadata:
  labels:
    run:
  name:
spec:
  ports:
  - port:
    protocol:
    targetPort:
  selector:
    run:
  type:
`;
  it('an object whose every field is null is info at most, and the message names the field', () => {
    const f = of(lintFile('backend-svc.yaml', SKELETON), 'RW8');
    expect(f.length).toBeGreaterThan(0);
    expect(f.every((x) => x.severity === 'info')).toBe(true);
    expect(f.find((x) => x.path === 'spec.ports[0].port')?.message).toMatch(/spec\.ports\[0\]\.port is required/);
    expect(f[0].message).toMatch(/skeleton to fill in/);
  });
  it('near miss: the same Service with a name is not a skeleton and stays above info', () => {
    const named = SKELETON.replace('  name:\n', '  name: backend\n');
    const f = of(lintFile('backend-svc.yaml', named), 'RW8');
    expect(f.some((x) => x.severity !== 'info')).toBe(true);
  });
});
