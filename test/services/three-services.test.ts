import { Testing } from 'cdk8s';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { lintObjects } from '../../src/rules/synth-check';
import { SchemaValidator } from '../../src/schemas/validator';
import { buildThreeServices, threeServicesPlatform } from '../fixtures/apps/three-services';
import { Manifest, workload } from '../support/manifests';

/** The three-service app (issue 12): each synthesizes, validates against its version's schema and lints clean. */
describe.each([KubernetesVersion.V1_28, KubernetesVersion.V1_33])(
  'three ordinary services on Kubernetes %s',
  (version) => {
    const validator = SchemaValidator.load(undefined, version);
    const { charts } = buildThreeServices(threeServicesPlatform(version));
    const out: Record<string, Manifest[]> = {};
    for (const [name, chart] of Object.entries(charts)) out[name] = Testing.synth(chart) as Manifest[];

    test.each(Object.keys(charts))('%s: every object validates against the schema', (name) => {
      for (const o of out[name])
        expect({ object: `${o.kind}/${o.metadata.name}`, errors: validator.validate(o) }).toEqual({
          object: `${o.kind}/${o.metadata.name}`,
          errors: [],
        });
    });

    test.each(Object.keys(charts))('%s: lints clean (no finding at any level)', (name) => {
      expect(
        lintObjects(out[name]).map((f) => `${f.severity} ${f.ruleId} ${f.object} ${f.path}: ${f.message}`),
      ).toEqual([]);
    });

    test('orders-api: env from a Secret, service account, numeric user, checked sidecar, canary route', () => {
      const pod = workload(out['orders-api']).spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001 });
      expect(pod.serviceAccountName).toBe('orders-api');
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.imagePullSecrets).toEqual([{ name: 'ghcr-pull' }]);
      expect(pod.containers[0].env[0]).toEqual({
        name: 'DATABASE_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'orders-db', key: 'password' } },
      });
      const sidecar = version.nativeSidecars ? pod.initContainers[0] : pod.containers[1];
      expect(sidecar.name).toBe('cloud-sql-proxy');
      expect(sidecar.restartPolicy).toBe(version.nativeSidecars ? 'Always' : undefined);
      expect(sidecar.resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '128Mi' } });
      expect(sidecar.securityContext).toEqual(pod.containers[0].securityContext);
      expect(sidecar.readinessProbe).toMatchObject({
        httpGet: { path: '/readiness', port: 'sql-health' },
        periodSeconds: 10,
        timeoutSeconds: 3,
      });
      expect(out['orders-api'].map((o) => o.kind)).toContain('HTTPRoute');
      const reasons = workload(out['orders-api']).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
      expect(reasons).toContain(`Kubernetes ${version.name} (platform.kubernetesVersion)`);
    });

    // orders-api's migration needs its proxy, which a Job runs only as a native sidecar (1.29+)
    test.each(version.nativeSidecars ? ['orders-api', 'ledger'] : ['ledger'])(
      "%s: the migration is a PreSync hook Job with the app's image and security context; the pods have no migration container",
      (name) => {
        const job = out[name].find((o) => o.kind === 'Job') as Manifest;
        expect(job.metadata.name).toBe(`${name}-migrate`);
        expect(job.metadata.annotations).toMatchObject({
          'argocd.argoproj.io/hook': 'PreSync',
          'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
        });
        expect(job.spec).toMatchObject({
          backoffLimit: 1,
          activeDeadlineSeconds: 600,
          ttlSecondsAfterFinished: 604800,
        });
        const w = workload(out[name]);
        const app = w.spec.template.spec.containers[0];
        const migrate = job.spec.template.spec.containers[0];
        expect(migrate.image).toBe(app.image);
        expect(migrate.securityContext).toEqual(app.securityContext);
        expect(job.spec.template.spec.securityContext).toEqual(w.spec.template.spec.securityContext);
        expect(migrate.env).toEqual(app.env);
        expect(job.spec.template.spec.restartPolicy).toBe('Never');
        // never selected by the Service or the PodDisruptionBudget
        expect(job.spec.template.metadata.labels['app.kubernetes.io/name']).toBe(`${name}-migrate`);
        const names = [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].map(
          (c: { name: string; command?: string[] }) => `${c.name} ${(c.command ?? []).join(' ')}`,
        );
        expect(names.filter((n: string) => /migrat/.test(n))).toEqual([]);
        // on 1.33 the proxy runs beside orders-api's migration as a native sidecar that stops with it
        if (name === 'orders-api')
          expect(
            (job.spec.template.spec.initContainers ?? []).map(
              (c: { name: string; restartPolicy?: string }) => `${c.name} ${c.restartPolicy}`,
            ),
          ).toEqual(version.nativeSidecars ? ['cloud-sql-proxy Always'] : []);
      },
    );

    test('web-front: rolling update keeps its HTTPRoute, BackendTrafficPolicy and route alerts', () => {
      const kinds = out['web-front'].map((o) => `${o.kind}/${o.metadata.name}`);
      expect(kinds).toEqual(
        expect.arrayContaining([
          'Deployment/web-front',
          'HTTPRoute/web-front',
          'BackendTrafficPolicy/web-front',
          'PrometheusRule/web-front',
        ]),
      );
      expect(kinds).not.toContain('Service/web-front-canary');
      const route = out['web-front'].find((o) => o.kind === 'HTTPRoute') as Manifest;
      expect(route.spec.rules[0].backendRefs).toEqual([
        { group: '', kind: 'Service', name: 'web-front', port: 80, weight: 100 },
      ]);
      const rule = out['web-front'].find((o) => o.kind === 'PrometheusRule') as Manifest;
      const alerts = rule.spec.groups[0].rules.map((r: { alert: string }) => r.alert);
      expect(alerts).toEqual(expect.arrayContaining(['Route5xxOverSlo', 'EnvoyNoHealthyUpstream']));
      expect(alerts).not.toContain('CanaryAnalysisFailed');
      const pod = workload(out['web-front']).spec.template;
      expect(pod.metadata.labels).toMatchObject({ tier: 'frontend', 'app.kubernetes.io/name': 'web-front' });
      expect(pod.metadata.annotations).toEqual({ 'acme.com/owner': 'web-team' });
      expect(pod.spec.containers[0].volumeMounts).toEqual([
        { name: 'tmp', mountPath: '/tmp' },
        { name: 'certs', mountPath: '/etc/web-front/certs', readOnly: true },
      ]);
      expect(pod.spec.volumes[1]).toEqual({ name: 'certs', secret: { secretName: 'web-front-tls' } });
      expect(pod.spec.containers[0].envFrom).toEqual([{ configMapRef: { name: 'web-front-config' } }]);
    });

    test('ledger: no route, so no route or Envoy alerts; separate liveness path, slow start, distroless shutdown delay', () => {
      const kinds = out.ledger.map((o) => o.kind);
      expect(kinds).not.toContain('HTTPRoute');
      expect(kinds).not.toContain('BackendTrafficPolicy');
      const rule = out.ledger.find((o) => o.kind === 'PrometheusRule') as Manifest;
      const exprs = rule.spec.groups[0].rules.map((r: { expr: string }) => r.expr).join('\n');
      expect(exprs).not.toContain('envoy_');
      const pod = workload(out.ledger).spec.template.spec;
      const app = pod.containers[0];
      expect(app.livenessProbe.httpGet.path).toBe('/livez');
      expect(app.startupProbe.failureThreshold * app.startupProbe.periodSeconds).toBeGreaterThanOrEqual(180);
      expect(app.lifecycle.preStop).toEqual(
        version.sleepAction ? { sleep: { seconds: 10 } } : { httpGet: { path: '/shutdown-delay', port: 'http' } },
      );
      expect(app.ports).toEqual([
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      ]);
      expect(pod.initContainers).toBeUndefined();
      expect(pod.nodeSelector).toEqual({ 'kubernetes.io/arch': 'arm64' });
      expect(pod.priorityClassName).toBe('business-critical');
    });
  },
);
