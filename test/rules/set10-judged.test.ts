/*
 * Held-out set 10, judged (issue 21 round 12): the finding its judge called wrong, with the public
 * shape it came from and near misses that must still be reported.
 */
import { Finding, runLint } from '../../src/rules';
import { Pass, SchemaCompiler, SchemaProblem } from '../../src/schemas/structural';
import { tempRepo } from './helpers';

/** `rollwise lint` on a folder holding one file (the cluster stage included). */
function lintFile(name: string, text: string): Finding[] {
  let out = '';
  runLint({
    paths: [tempRepo('rw-set10-', { [name]: text })],
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

const of = (f: Finding[], id: string): Finding[] => f.filter((x) => x.status === 'open' && x.ruleId.startsWith(id));

/** ams0/pd-argo-rollouts-istio-gateway-api ingress/gateway.yaml, with the address as given. */
const gateway = (address: string): string => `kind: Gateway
apiVersion: gateway.networking.k8s.io/v1
metadata:
  name: http
  namespace: istio-system
spec:
  gatewayClassName: istio
  addresses:
  - ${address}
  listeners:
  - protocol: HTTP
    port: 80
    name: http
    allowedRoutes:
      namespaces:
        from: All
`;

describe("RW801 on a Gateway's spec.addresses oneOf (Gateway API v1.6.1, held-out set 10)", () => {
  const rw801 = (address: string): Finding[] => of(lintFile('ingress/gateway.yaml', gateway(address)), 'RW801');

  it('a Hostname address matches the second branch only: no finding (the judged shape)', () => {
    expect(rw801('value: istio-ingressgateway.istio-system.svc.cluster.local\n    type: Hostname')).toEqual([]);
  });

  it('an IPAddress address (IPv4 or IPv6, and the defaulted type) matches the first branch only', () => {
    expect(rw801('value: 10.0.0.1\n    type: IPAddress')).toEqual([]);
    expect(rw801('value: "2001:db8::1"\n    type: IPAddress')).toEqual([]);
    expect(rw801('value: 192.168.1.20')).toEqual([]);
    expect(rw801('value: my-ip-address\n    type: NamedAddress')).toEqual([]);
  });

  it('near miss: an IPAddress whose value is no IP matches neither branch', () => {
    for (const bad of ['istio-ingressgateway.istio-system', '10.0.0', '2001:db8:::1']) {
      const f = rw801(`value: "${bad}"\n    type: IPAddress`);
      expect(f.map((x) => x.path)).toEqual(['spec.addresses[0]']);
      expect(f[0].message).toMatch(/exactly one of the schema's alternatives \(oneOf\)/);
    }
    // the type defaults to IPAddress before the oneOf is evaluated
    expect(rw801('value: ingress.example.com').map((x) => x.path)).toEqual(['spec.addresses[0]']);
  });

  it('near miss: a Hostname that is no host name is refused by its CEL rule (RW802)', () => {
    const f = lintFile('ingress/gateway.yaml', gateway('value: Not_A_Host\n    type: Hostname'));
    expect(of(f, 'RW801')).toEqual([]);
    expect(of(f, 'RW802').map((x) => x.path)).toEqual(['spec.addresses[0]']);
    expect(of(f, 'RW802')[0].message).toMatch(/Hostname value must be empty or contain only valid characters/);
  });

  it('near miss: an unknown field of an address is still reported (the structural schema prunes it)', () => {
    const f = rw801('value: gw.example.com\n    type: Hostname\n    port: 80');
    expect(f.map((x) => x.path)).toEqual(['spec.addresses[0].port']);
  });
});

describe('junctor branches are value validations (kube-openapi), formats ipv4 / ipv6', () => {
  const check = (schema: Record<string, unknown>, v: unknown): string[] => {
    const out: SchemaProblem[] = [];
    new SchemaCompiler({}, true).compile(schema).check(v, out, new Pass());
    return out.map((p) => `${p.path} ${p.message}`);
  };
  const oneOf = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' } },
    oneOf: [{ required: ['a'] }, { properties: { b: { enum: ['x'] } }, required: ['b'] }],
  };

  it('a field a branch does not list passes that branch; exactly one match is valid', () => {
    expect(check(oneOf, { a: '1' })).toEqual([]);
    expect(check(oneOf, { b: 'x' })).toEqual([]);
    expect(check(oneOf, { a: '1', b: 'y' })).toEqual([]);
  });

  it('near miss: two matches or none are refused', () => {
    expect(check(oneOf, { a: '1', b: 'x' })).toEqual([
      ' {"a":"1","b":"x"} must match exactly one of the schema\'s alternatives (oneOf)',
    ]);
    expect(check(oneOf, { b: 'y' })).toHaveLength(1);
    expect(check({ ...oneOf, oneOf: undefined }, { a: '1', c: '2' })).toEqual([
      '/c is not a field of this kind (unknown field; the API server drops or refuses it)',
    ]);
  });

  it('a default inside a branch is not applied; not / anyOf / allOf see fields they do not list', () => {
    const s = {
      type: 'object',
      properties: { t: { type: 'string' }, v: { type: 'string' } },
      not: { properties: { t: { enum: ['bad'] } }, required: ['t'] },
      anyOf: [{ properties: { t: { default: 'x', enum: ['x'] } }, required: ['t'] }, { required: ['v'] }],
      allOf: [{ properties: { v: { maxLength: 3 } } }],
    };
    expect(check(s, { v: 'abc' })).toEqual([]);
    expect(check(s, { t: 'bad' })).toEqual([
      ' {"t":"bad"} matches none of the schema\'s alternatives (anyOf)',
      ' {"t":"bad"} matches a schema it must not (not)',
    ]);
    expect(check(s, {})).toEqual([" {} matches none of the schema's alternatives (anyOf)"]);
    expect(check(s, { v: 'abcd' })).toEqual(['/v is 4 characters long, more than 3']);
  });

  it('ipv4 and ipv6 as kube-openapi strfmt reads them', () => {
    const ok = (format: string, v: string): boolean => check({ type: 'string', format }, v).length === 0;
    for (const v of ['10.0.0.1', '010.0.0.1', '255.255.255.255', '::ffff:10.0.0.1']) expect(ok('ipv4', v)).toBe(true);
    for (const v of ['10.0.0', '256.0.0.1', '1.2.3.4.5', 'a.b.c.d', '::1', '']) expect(ok('ipv4', v)).toBe(false);
    for (const v of ['::', '::1', '2001:db8::1', 'fe80:0:0:0:0:0:0:1', '::ffff:1.2.3.4', '1:2:3:4:5:6:1.2.3.4'])
      expect(ok('ipv6', v)).toBe(true);
    for (const v of ['1.2.3.4', '2001:db8:::1', '1::2::3', '1:2:3:4:5:6:7', '12345::1', 'fe80::1%eth0', '::01.2.3.4'])
      expect(ok('ipv6', v)).toBe(false);
    expect(check({ type: 'string', format: 'ipv4' }, 'x.y')).toEqual([' "x.y" is not a valid ipv4']);
  });
});

/** istio/test-infra prow/gcp/cluster/hook_deployment.yaml (Prow's hook; tektoncd/plumbing's is the same), trimmed. */
const hook = (readinessTimeout: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hook
  namespace: default
  labels:
    app: hook
spec:
  replicas: 4
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 1
  selector:
    matchLabels:
      app: hook
  template:
    metadata:
      labels:
        app: hook
    spec:
      serviceAccountName: "hook"
      terminationGracePeriodSeconds: 180
      containers:
      - name: hook
        image: us-docker.pkg.dev/k8s-infra-prow/images/hook:v20260714-0633879af
        ports:
        - name: http
          containerPort: 8888
        - name: metrics
          containerPort: 9090
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8081
          initialDelaySeconds: 3
          periodSeconds: 3
        readinessProbe:
          httpGet:
            path: /healthz/ready
            port: 8081
          initialDelaySeconds: 10
          periodSeconds: 3
          timeoutSeconds: ${readinessTimeout}
`;

describe('RW106 beside a readiness timeout of five minutes or more (held-out set 10)', () => {
  const rw106 = (t: number): Finding[] => of(lintFile('prow/gcp/cluster/hook_deployment.yaml', hook(t)), 'RW106');

  it("Prow's hook: a 1 s liveness beside a 600 s readiness timeout is not reported (judged noise)", () => {
    expect(rw106(600)).toEqual([]);
    expect(rw106(300)).toEqual([]);
  });

  it('near miss: readiness timeouts of 60 s (judged real on set 9) and 299 s are still RW106', () => {
    for (const t of [60, 299]) {
      const f = rw106(t);
      expect(f.map((x) => x.path)).toEqual(['spec.template.spec.containers[0].livenessProbe']);
      expect(f[0].message).toContain(`timeoutSeconds 1 < readiness ${t}`);
    }
  });
});

/**
 * lisenet/kubernetes-homelab kubernetes/mikrotik-exporter (mikrotik-exporter-deployment.yml and
 * mikrotik-exporter-service.yml), trimmed, with the containers given.
 */
const exporter = (containers: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: mikrotik-lte-exporter
  namespace: monitoring
  labels:
    app: mikrotik-lte-exporter
spec:
  replicas: 1
  selector:
    matchLabels:
      app: mikrotik-lte-exporter
  template:
    metadata:
      labels:
        app: mikrotik-lte-exporter
    spec:
      containers:
${containers}
---
apiVersion: v1
kind: Service
metadata:
  name: mikrotik-lte-exporter
  namespace: monitoring
  labels:
    app: mikrotik-lte-exporter
spec:
  selector:
    app: mikrotik-lte-exporter
  type: NodePort
  ports:
    - port: 9437
      targetPort: 9436
`;
const MIKROTIK = `        - name: mikrotik-exporter
          image: lisenet/mikrotik-exporter:1.0.13
          ports:
            - containerPort: 9436`;

describe('RW110 on a Prometheus exporter behind a Service (held-out set 10)', () => {
  const rw110 = (containers: string): Finding[] =>
    of(lintFile('kubernetes/mikrotik-exporter/mikrotik-exporter-deployment.yml', exporter(containers)), 'RW110');

  it('every container an exporter (by image or container name): not reported (judged noise)', () => {
    expect(rw110(MIKROTIK)).toEqual([]);
    const blackbox = '        - name: blackbox-prober\n          image: prom/blackbox-exporter:v0.15.1';
    expect(rw110(blackbox)).toEqual([]);
    const byName = '        - name: snmp_exporter\n          image: registry.local:5000/snmp@sha256:0123';
    expect(rw110(byName)).toEqual([]);
  });

  it('near miss: an exporter sidecar beside a serving container is still reported', () => {
    // oracle-quickstart/oci-cloudnative deploy/complete/kubernetes/mushop.yaml, Deployment/mushop-nats
    const nats = `        - name: nats
          image: nats:2.1.2
          ports:
            - containerPort: 4222
              name: client
${MIKROTIK.replace('mikrotik-exporter:1.0.13', 'prometheus-nats-exporter:0.6.2')}`;
    expect(rw110(nats).map((x) => x.path)).toEqual(['spec.template.spec.containers']);
  });

  it('near miss: a 9xxx port without an exporter name is still reported (the pushgateway, judged real)', () => {
    // kubevirt/project-infra .../test_infra/current/pushgateway_deployment.yaml: clients push to it
    const push = `        - name: pushgateway
          image: prom/pushgateway:v0.4.0
          ports:
            - containerPort: 9091
              name: http`;
    expect(rw110(push).map((x) => x.path)).toEqual(['spec.template.spec.containers']);
    // "exporter" inside a name, not its end, is not an exporter
    expect(rw110(MIKROTIK.replace(/mikrotik-exporter/g, 'exporter-ui'))).toHaveLength(1);
  });
});
