import { ApiObject, App, Chart, JsonPatch } from 'cdk8s';
import { Construct } from 'constructs';
import { RollwiseInputError } from '../../src/errors';
import {
  declareCluster,
  normalizeClusterUrl,
  registerDuplicateObjectsCheck,
  registerForConflicts,
  registerNamespaceMetadata,
} from '../../src/invariants/conflicts';
import {
  acceptPatch,
  declareDecidedValuesChecked,
  registerDecidedValuesCheck,
} from '../../src/invariants/decided-values';
import {
  acceptPatchedValue,
  finalObjects,
  isRenderingPatch,
  patchFailure,
  renderingPatch,
  unpatchedRender,
} from '../../src/invariants/final-objects';
import { renderChecksOf, renderedApp } from '../../src/synth/render-checks';

/**
 * The app-wide checks of src/invariants/ (conflicts.ts, final-objects.ts, decided-values.ts) on
 * small apps of plain ApiObjects, run on one render the way synth runs them (renderChecksOf on
 * renderedApp), without an HttpService or a synth: fast enough for StrykerJS to run per mutant
 * (npm run mutation). The synth-level behaviour is in conflicts.test.ts and decided-values.test.ts.
 */
type J = Record<string, unknown>;

function render(app: App): { chart: Chart; json: J; apiObject: ApiObject }[] {
  const out: { chart: Chart; json: J; apiObject: ApiObject }[] = [];
  for (const chart of app.node.findAll().filter((c): c is Chart => c instanceof Chart)) {
    for (const o of chart.node.findAll())
      if (o instanceof ApiObject && Chart.of(o) === chart) out.push({ chart, json: o.toJson() as J, apiObject: o });
  }
  return out;
}

/** Every render check of the app, on one render of it. */
function problems(app: App): string[] {
  const r = renderedApp(render(app));
  return renderChecksOf(app).flatMap((c) => c.check(r));
}

const obj = (scope: Construct, id: string, kind: string, name: string, extra: J = {}, apiVersion = 'v1') =>
  new ApiObject(scope, id, { apiVersion, kind, metadata: { name }, ...extra });

function route(scope: Construct, id: string, spec: J): ApiObject {
  return obj(scope, id, 'HTTPRoute', id, { spec }, 'gateway.networking.k8s.io/v1');
}

/** A "service": a construct with its objects under it, registered for the cross-service check. */
function service(
  chart: Chart,
  id: string,
  platformCluster?: string,
  build: (s: Construct) => void = (s) => obj(s, 'svc', 'Service', 'web'),
): Construct {
  const s = new Construct(chart, id);
  build(s);
  registerForConflicts(s, platformCluster);
  return s;
}

describe('normalizeClusterUrl', () => {
  test.each([
    ['HTTPS://Kube.Example.COM:443/', 'https://kube.example.com'],
    ['  HTTPS://Kube.example.com  ', 'https://kube.example.com'],
    // not a URL from its first character to its last: kept as written (trimmed), never cut to the URL inside
    ['1HTTPS://Kube.example.com', '1HTTPS://Kube.example.com'],
    ['https://Kube.example.com/a\nb', 'https://Kube.example.com/a\nb'],
    ['https://kube.example.com:6443', 'https://kube.example.com:6443'],
    ['https://kube.example.com:4430', 'https://kube.example.com:4430'],
    ['http://kube.example.com:443', 'http://kube.example.com:443'],
    ['https://kube.example.com/Clusters/East///', 'https://kube.example.com/Clusters/East'],
    ['https://kube.example.com?x=1', 'https://kube.example.com?x=1'],
    ['https://kubernetes.default.svc', 'https://kubernetes.default.svc'],
    [' in-cluster ', 'in-cluster'],
    ['kube.example.com:443/', 'kube.example.com:443/'],
    ['', ''],
  ])('%j -> %j', (given, expected) => {
    expect(normalizeClusterUrl(given)).toBe(expected);
  });
});

describe('two services claiming one object or one route (conflicts)', () => {
  test('the same kind, namespace and name in two services: one message naming both, on the one cluster', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one');
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two');
    expect(problems(app)).toEqual([
      "[a/one, b/two] Service shop/web on the one cluster (no Argo CD destination set): claimed by both a/one and b/two. Fix: give the services different names or namespaces; otherwise the second apply replaces the first service's object.",
    ]);
  });
  test("a service's own objects never conflict with each other, and other namespaces, kinds or names do not conflict", () => {
    const app = new App();
    const chart = new Chart(app, 'a', { namespace: 'shop' });
    service(chart, 'one', undefined, (s) => {
      obj(s, 'x', 'ConfigMap', 'web');
      obj(new Construct(s, 'inner'), 'y', 'ConfigMap', 'web-2');
    });
    service(new Chart(app, 'b', { namespace: 'other' }), 'two', undefined, (s) => obj(s, 'x', 'ConfigMap', 'web'));
    service(new Chart(app, 'c', { namespace: 'shop' }), 'three', undefined, (s) => obj(s, 'x', 'Secret', 'web'));
    service(new Chart(app, 'd', { namespace: 'shop' }), 'four', undefined, (s) => obj(s, 'x', 'ConfigMap', 'web-3'));
    expect(problems(app)).toEqual([]);
  });
  test('a cluster-scoped object (no namespace) names no namespace', () => {
    const app = new App();
    service(new Chart(app, 'a'), 'one', undefined, (s) => obj(s, 'x', 'ClusterRole', 'reader'));
    service(new Chart(app, 'b'), 'two', undefined, (s) => obj(s, 'x', 'ClusterRole', 'reader'));
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[a\/one, b\/two\] ClusterRole reader on the one cluster \(no Argo CD destination set\): claimed by both/,
      ),
    ]);
  });
  test('three services on one object: the first is named with each later one', () => {
    const app = new App();
    for (const id of ['a', 'b', 'c']) service(new Chart(app, id, { namespace: 'shop' }), `s${id}`);
    expect(problems(app).map((m) => m.slice(0, m.indexOf(']') + 1))).toEqual(['[a/sa, b/sb]', '[a/sa, c/sc]']);
  });
  test('services on different clusters do not conflict; one cluster spelled two ways does, named by its normalized URL', () => {
    const app = new App();
    const east = new Chart(app, 'east', { namespace: 'shop' });
    declareCluster(east, 'https://East.example.com:443/');
    service(east, 'one');
    const east2 = new Chart(app, 'east2', { namespace: 'shop' });
    declareCluster(east2, 'https://east.example.com');
    // the declared cluster of an enclosing construct applies, and wins over the platform's
    service(east2, 'two', 'https://platform.example.com');
    service(new Chart(app, 'west', { namespace: 'shop' }), 'three', 'https://west.example.com');
    service(new Chart(app, 'nowhere', { namespace: 'shop' }), 'four');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[east\/one, east2\/two\] Service shop\/web on cluster https:\/\/east\.example\.com: claimed by both/,
      ),
    ]);
  });
  test("the platform's cluster is a service's cluster when its environment declares none", () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', 'https://Platform.example.com/');
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', 'https://platform.example.com');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[a\/one, b\/two\] Service shop\/web on cluster https:\/\/platform\.example\.com: claimed by both/,
      ),
    ]);
  });
  test("the same hostname and path on one Gateway: claimed by both; the parentRef namespace defaults to the route's", () => {
    const app = new App();
    const spec = (ns?: string) => ({
      parentRefs: [{ name: 'public', ...(ns ? { namespace: ns } : {}) }],
      hostnames: ['shop.example.com'],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/cart' } }] }],
    });
    service(new Chart(app, 'a', { namespace: 'gw' }), 'one', undefined, (s) => route(s, 'r1', spec()));
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) => route(s, 'r2', spec('gw')));
    expect(problems(app)).toEqual([
      "[a/one, b/two] hostname shop.example.com path PathPrefix /cart on Gateway gw/public (the one cluster (no Argo CD destination set)): claimed by both a/one and b/two. Fix: give each service its own hostname (or distinct path prefixes); two routes matching the same requests split them by the Gateway's precedence rules, not by intent.",
    ]);
  });
  test('a rule without matches claims PathPrefix /, and so does a match without a path', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) =>
      route(s, 'r1', {
        parentRefs: [{ name: 'public', namespace: 'gw' }],
        hostnames: ['shop.example.com'],
        rules: [{}],
      }),
    );
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', {
        parentRefs: [{ name: 'public', namespace: 'gw' }],
        hostnames: ['shop.example.com'],
        rules: [{ matches: [{}] }],
      }),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[a\/one, b\/two\] hostname shop\.example\.com path PathPrefix \/ on Gateway gw\/public /,
      ),
    ]);
  });
  test('a match with headers claims other requests than one without; two with the same headers conflict', () => {
    const app = new App();
    const rules = (headers: boolean, order = 0) => [
      {
        matches: [
          {
            path: { type: 'Exact', value: '/a' },
            ...(headers
              ? order
                ? { method: 'GET', headers: [{ name: 'x', value: '1' }] }
                : { headers: [{ name: 'x', value: '1' }], method: 'GET' }
              : {}),
          },
        ],
      },
    ];
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) =>
      route(s, 'r1', {
        parentRefs: [{ name: 'public', namespace: 'gw' }],
        hostnames: ['shop.example.com'],
        rules: rules(true),
      }),
    );
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', {
        parentRefs: [{ name: 'public', namespace: 'gw' }],
        hostnames: ['shop.example.com'],
        rules: rules(false),
      }),
    );
    // cdk8s sorts the keys it renders, not those a patch adds: the same keys in another order are the same match
    service(new Chart(app, 'c', { namespace: 'shop' }), 'three', undefined, (s) =>
      route(s, 'r3', {
        parentRefs: [{ name: 'public', namespace: 'gw' }],
        hostnames: ['shop.example.com'],
        rules: [],
      }).addJsonPatch(JsonPatch.replace('/spec/rules', rules(true, 1))),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[a\/one, c\/three\] hostname shop\.example\.com path Exact \/a \(\+ headers, method\) on Gateway gw\/public /,
      ),
    ]);
  });
  test('other hostnames, gateways or paths, and routes that are not HTTPRoutes, do not conflict', () => {
    const app = new App();
    const base = {
      parentRefs: [{ name: 'public', namespace: 'gw' }],
      hostnames: ['shop.example.com'],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }] }],
    };
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) => route(s, 'r1', base));
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', { ...base, hostnames: ['other.example.com'] }),
    );
    service(new Chart(app, 'c', { namespace: 'shop' }), 'three', undefined, (s) =>
      route(s, 'r3', { ...base, parentRefs: [{ name: 'internal', namespace: 'gw' }] }),
    );
    service(new Chart(app, 'd', { namespace: 'shop' }), 'four', undefined, (s) =>
      route(s, 'r4', { ...base, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/other' } }] }] }),
    );
    service(new Chart(app, 'e', { namespace: 'shop' }), 'five', undefined, (s) =>
      obj(s, 'g', 'GRPCRoute', 'g5', { spec: base }, 'gateway.networking.k8s.io/v1'),
    );
    service(new Chart(app, 'f', { namespace: 'shop' }), 'six', undefined, (s) =>
      obj(s, 'g', 'GRPCRoute', 'g6', { spec: base }, 'gateway.networking.k8s.io/v1'),
    );
    expect(problems(app)).toEqual([]);
  });
  test('every parentRef, hostname and match is a claim of its own', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) =>
      route(s, 'r1', {
        parentRefs: [
          { name: 'public', namespace: 'gw' },
          { name: 'internal', namespace: 'gw' },
        ],
        hostnames: ['a.example.com', 'b.example.com'],
        rules: [{ matches: [{ path: { value: '/x' } }, { path: { type: 'Exact' } }] }],
      }),
    );
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', {
        parentRefs: [{ name: 'internal', namespace: 'gw' }],
        hostnames: ['b.example.com'],
        rules: [{ matches: [{ path: { type: 'Exact', value: '/' } }] }],
      }),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(/^\[a\/one, b\/two\] hostname b\.example\.com path Exact \/ on Gateway gw\/internal /),
    ]);
  });
  test('parentRefs, rules and matches that are not maps: claims of the defaults, never a crash', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) =>
      route(s, 'r1', { parentRefs: ['public'], hostnames: ['a.example.com'], rules: ['x'] }),
    );
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', { parentRefs: [7], hostnames: ['a.example.com'], rules: [{ matches: ['y'] }] }),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(/hostname a\.example\.com path PathPrefix \/ on Gateway shop\/ \(the one cluster/),
    ]);
  });
  test('a parentRef without a name still claims its gateway by namespace', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) =>
      route(s, 'r1', { parentRefs: [{}], hostnames: ['a.example.com'], rules: [{}] }),
    );
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', undefined, (s) =>
      route(s, 'r2', { parentRefs: [{}], hostnames: ['a.example.com'], rules: [{}] }),
    );
    expect(problems(app)).toEqual([expect.stringMatching(/ on Gateway shop\/ \(the one cluster/)]);
  });
});

describe('one object written twice in one output (duplicate objects)', () => {
  test('twice outside any service, in one chart and across charts: one message each, naming both charts', () => {
    const app = new App();
    registerDuplicateObjectsCheck(app);
    registerDuplicateObjectsCheck(new Chart(app, 'unused')); // added once per app
    const a = new Chart(app, 'a', { namespace: 'shop' });
    obj(a, 'x', 'Deployment', 'web', {}, 'apps/v1');
    obj(a, 'y', 'Deployment', 'web', {}, 'apps/v1');
    obj(new Chart(app, 'b'), 'z', 'Namespace', 'shop');
    obj(new Chart(app, 'c'), 'z', 'Namespace', 'shop');
    expect(problems(app)).toEqual([
      "Deployment.apps shop/web on the one cluster (no Argo CD destination set): written twice in one synth output (chart a and chart a). Applied together, the later one replaces the other: Argo CD keeps only the last of an Application's duplicates (RepeatedResourceWarning, argo-cd v3.5.1 controller/state.go NormalizeTargetObjects), kubectl apply applies both in order. Fix: give the added object another name, or change the object rollwise writes with a patch instead of adding a second one.",
      expect.stringMatching(
        /^Namespace shop on the one cluster \(no Argo CD destination set\): written twice in one synth output \(chart b and chart c\)/,
      ),
    ]);
  });
  test('another API group, kind, namespace, name or cluster is another object', () => {
    const app = new App();
    registerDuplicateObjectsCheck(app);
    const a = new Chart(app, 'a', { namespace: 'shop' });
    obj(a, 'x', 'Deployment', 'web', {}, 'apps/v1');
    obj(a, 'g', 'Deployment', 'web', {}, 'example.com/v1');
    obj(a, 'k', 'StatefulSet', 'web', {}, 'apps/v1');
    obj(a, 'n', 'Deployment', 'web-2', {}, 'apps/v1');
    obj(new Chart(app, 'b', { namespace: 'other' }), 'x', 'Deployment', 'web', {}, 'apps/v1');
    const east = new Chart(app, 'east', { namespace: 'shop' });
    declareCluster(east, 'https://east.example.com');
    obj(east, 'x', 'Deployment', 'web', {}, 'apps/v1');
    obj(new Construct(east, 'deep'), 'y', 'ConfigMap', 'cfg');
    const east2 = new Chart(app, 'east2', { namespace: 'shop' });
    declareCluster(east2, 'https://EAST.example.com:443');
    obj(east2, 'y', 'ConfigMap', 'cfg');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^ConfigMap shop\/cfg on cluster https:\/\/east\.example\.com: written twice in one synth output \(chart east and chart east2\)/,
      ),
    ]);
  });
  test('Argo CD Applications are left to their own name check; an Application of another group is not', () => {
    const app = new App();
    registerDuplicateObjectsCheck(app);
    const a = new Chart(app, 'a', { namespace: 'argocd' });
    obj(a, 'x', 'Application', 'web', {}, 'argoproj.io/v1alpha1');
    obj(a, 'y', 'Application', 'web', {}, 'argoproj.io/v1alpha1');
    obj(a, 'p', 'Application', 'web', {}, 'app.k8s.io/v1beta1');
    obj(a, 'q', 'Application', 'web', {}, 'app.k8s.io/v1beta1');
    obj(a, 'r1', 'Rollout', 'web', {}, 'argoproj.io/v1alpha1');
    obj(a, 'r2', 'Rollout', 'web', {}, 'argoproj.io/v1alpha1');
    expect(problems(app)).toEqual([
      expect.stringMatching(/^Application\.app\.k8s\.io argocd\/web on the one cluster/),
      expect.stringMatching(/^Rollout\.argoproj\.io argocd\/web on the one cluster/),
    ]);
  });
  test("an object outside services in a service's chart is on the service's cluster; two services' objects are left to the cross-service check", () => {
    const app = new App();
    const a = new Chart(app, 'a', { namespace: 'shop' });
    service(a, 'one', 'https://platform.example.com');
    obj(a, 'extra', 'Service', 'web');
    service(new Chart(app, 'b', { namespace: 'shop' }), 'two', 'https://platform.example.com');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^Service shop\/web on cluster https:\/\/platform\.example\.com: written twice in one synth output \(chart a and chart a\)/,
      ),
      expect.stringMatching(
        /^\[a\/one, b\/two\] Service shop\/web on cluster https:\/\/platform\.example\.com: claimed by both/,
      ),
    ]);
  });
  test("a chart with two services on two clusters: an object outside them is on the first service's cluster", () => {
    const app = new App();
    const a = new Chart(app, 'a', { namespace: 'shop' });
    service(a, 'one', 'https://first.example.com', (s) => obj(s, 'x', 'Service', 'one'));
    service(a, 'two', 'https://second.example.com', (s) => obj(s, 'x', 'Service', 'two'));
    obj(a, 'e1', 'ConfigMap', 'extra');
    obj(a, 'e2', 'ConfigMap', 'extra');
    expect(problems(app)).toEqual([
      expect.stringMatching(/^ConfigMap shop\/extra on cluster https:\/\/first\.example\.com: written twice/),
    ]);
  });
  test("an added object before a service's own, in an earlier chart: written twice", () => {
    const app = new App();
    const a = new Chart(app, 'a', { namespace: 'shop' });
    declareCluster(a, 'https://platform.example.com');
    obj(a, 'extra', 'Service', 'web');
    service(new Chart(app, 'b', { namespace: 'shop' }), 'one', 'https://platform.example.com');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^Service shop\/web on cluster https:\/\/platform\.example\.com: written twice in one synth output \(chart a and chart b\)/,
      ),
    ]);
  });
  test('one service writing one object twice: written twice, and no service conflicts with itself', () => {
    const app = new App();
    service(new Chart(app, 'a', { namespace: 'shop' }), 'one', undefined, (s) => {
      obj(s, 'x', 'ConfigMap', 'cfg');
      obj(s, 'y', 'ConfigMap', 'cfg');
      const spec = { parentRefs: [{ name: 'public', namespace: 'gw' }], hostnames: ['shop.example.com'], rules: [{}] };
      route(s, 'r1', spec);
      route(s, 'r2', spec);
    });
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^ConfigMap shop\/cfg on the one cluster .*: written twice in one synth output \(chart a and chart a\)/,
      ),
    ]);
  });
  test("a service's object and an added one in its chart: written twice, naming the chart", () => {
    const app = new App();
    const a = new Chart(app, 'a', { namespace: 'shop' });
    service(a, 'one', 'https://platform.example.com');
    const b = new Chart(app, 'b', { namespace: 'shop' });
    obj(b, 'extra', 'Service', 'web');
    declareCluster(b, 'https://platform.example.com');
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^Service shop\/web on cluster https:\/\/platform\.example\.com: written twice in one synth output \(chart a and chart b\)/,
      ),
    ]);
  });
  test('an object without apiVersion, kind or name is still compared by what it has', () => {
    const app = new App();
    registerDuplicateObjectsCheck(app);
    const a = new Chart(app, 'a');
    new ApiObject(a, 'x', { apiVersion: 'v1', kind: 'ConfigMap' }).addJsonPatch(JsonPatch.remove('/metadata/name'));
    new ApiObject(a, 'y', { apiVersion: 'v1', kind: 'ConfigMap' }).addJsonPatch(JsonPatch.remove('/metadata/name'));
    expect(problems(app)).toEqual([expect.stringMatching(/^ConfigMap {2}on the one cluster/)]);
  });
});

describe('namespace labels kept by two Applications (managedNamespaceMetadata)', () => {
  const application = (scope: Construct, id: string, server: string, ns: string, labels?: Record<string, string>) =>
    obj(
      scope,
      id,
      'Application',
      id,
      {
        spec: {
          destination: { server, namespace: ns },
          syncPolicy: labels ? { managedNamespaceMetadata: { labels } } : {},
        },
      },
      'argoproj.io/v1alpha1',
    );
  const claim = (
    scope: Construct,
    id: string,
    server: string,
    ns: string,
    labels: Record<string, string>,
    written?: Record<string, string> | null,
  ) => {
    const c = new Construct(scope, id);
    const object = written === undefined ? undefined : application(c, 'app', server, ns, written ?? undefined);
    registerNamespaceMetadata(c, {
      service: `svc-${id}`,
      server,
      namespace: ns,
      labels,
      ...(object ? { object } : {}),
    });
    return object;
  };
  test('different labels on one namespace of one cluster: one message naming both Applications and the labels that differ', () => {
    const app = new App();
    const chart = new Chart(app, 'argocd');
    claim(chart, 'a', 'https://kube.example.com', 'shop', {
      'pod-security.kubernetes.io/enforce': 'restricted',
      team: 'x',
      same: '1',
    });
    claim(chart, 'b', 'https://KUBE.example.com:443/', 'shop', {
      'pod-security.kubernetes.io/enforce': 'baseline',
      owner: 'y',
      same: '1',
    });
    claim(chart, 'c', 'https://kube.example.com', 'shop', {
      'pod-security.kubernetes.io/enforce': 'restricted',
      team: 'x',
      same: '1',
    });
    expect(problems(app)).toEqual([
      '[argocd/a, argocd/b] Namespace shop on cluster https://kube.example.com: services svc-a (Application argocd/a) and svc-b (Application argocd/b) keep different labels on it (managedNamespaceMetadata; owner: (absent) vs y, pod-security.kubernetes.io/enforce: restricted vs baseline, team: x vs (absent)). ' +
        "Argo CD sets the namespace's labels to each Application's own at every sync, with one server-side apply field manager for all of them (argo-cd v3.5.1 controller/sync_namespace.go, controller/sync.go), so each sync undoes the other's: the Pod Security level flips with every sync and pods are admitted or refused by whichever service synced last. " +
        "Fix: give every service in the namespace one NamespacePolicy (set it once as the platform's argoCd.namespaces), or use NamespacePolicy.existing() for all of them and own the namespace in the platform repository (`rollwise platform --namespace shop`).",
    ]);
  });
  test('the same labels in another order, another namespace, or another cluster: no conflict', () => {
    const app = new App();
    const chart = new Chart(app, 'argocd');
    claim(chart, 'a', 'https://kube.example.com', 'shop', { a: '1', b: '2' });
    claim(chart, 'b', 'https://kube.example.com', 'shop', { b: '2', a: '1' });
    claim(chart, 'c', 'https://kube.example.com', 'other', { a: '3' });
    claim(chart, 'd', 'https://other.example.com', 'shop', { a: '4' });
    expect(problems(app)).toEqual([]);
  });
  test('the written Application counts: its patched destination and labels are compared, and one written without labels claims nothing', () => {
    const app = new App();
    const chart = new Chart(app, 'argocd');
    claim(chart, 'a', 'https://kube.example.com', 'shop', { a: '1' }, { a: '1' });
    // registered with the same labels, written with others (a patch)
    const b = claim(chart, 'b', 'https://kube.example.com', 'shop', { a: '1' }, { a: '1' })!;
    b.addJsonPatch(JsonPatch.replace('/spec/syncPolicy/managedNamespaceMetadata/labels/a', '2'));
    // registered on another namespace and cluster, written to shop on kube (a patch)
    const c = claim(chart, 'c', 'https://else.example.com', 'else', { a: '1' }, { a: '1' })!;
    c.addJsonPatch(
      JsonPatch.replace('/spec/destination/namespace', 'tools'),
      JsonPatch.replace('/spec/destination/server', 'https://Kube.example.com/'),
    );
    // registered with labels, written without (no labels, or no syncPolicy at all): claims nothing
    claim(chart, 'd', 'https://kube.example.com', 'tools', { a: '9' }, null);
    claim(chart, 'd2', 'https://kube.example.com', 'tools', { a: '8' }, { a: '8' })!.addJsonPatch(
      JsonPatch.remove('/spec/syncPolicy'),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^\[argocd\/a, argocd\/b\] Namespace shop on cluster https:\/\/kube\.example\.com: .*\(managedNamespaceMetadata; a: 1 vs 2\)/,
      ),
    ]);
    // c now claims tools on kube, where d claims nothing: one more claim there conflicts with c, not d
    const e = claim(chart, 'e', 'https://kube.example.com', 'tools', { a: '5' }, { a: '5' });
    expect(e).toBeDefined();
    expect(problems(app)[1]).toMatch(
      /^\[argocd\/c, argocd\/e\] Namespace tools on cluster https:\/\/kube\.example\.com: .*\(managedNamespaceMetadata; a: 1 vs 5\)/,
    );
  });
  test('an Application written without a destination keeps the registered one; one not rendered keeps its registration', () => {
    const app = new App();
    const chart = new Chart(app, 'argocd');
    const a = claim(chart, 'a', 'https://kube.example.com', 'shop', { a: '1' }, { a: '1' })!;
    a.addJsonPatch(JsonPatch.remove('/spec/destination'));
    const bApp = claim(chart, 'b', 'https://kube.example.com', 'shop', { a: '2' }, { a: '2' })!;
    // an object under the Application is not the Application
    obj(bApp, 'child', 'ConfigMap', 'child');
    const all = render(app);
    expect(renderChecksOf(app).flatMap((c) => c.check(renderedApp(all)))).toEqual([
      expect.stringMatching(
        /^\[argocd\/a, argocd\/b\] Namespace shop on cluster https:\/\/kube\.example\.com: .*a: 1 vs 2/,
      ),
    ]);
    // b's object is not in the render: its registered claim (labels a: 2) still counts
    const withoutB = renderedApp(all.filter((o) => o.apiObject !== bApp));
    expect(withoutB.objectsOf(bApp).map((o) => o.apiObject.node.path)).toEqual(['argocd/b/app/child']);
    expect(renderChecksOf(app).flatMap((c) => c.check(withoutB))).toEqual([expect.stringMatching(/a: 1 vs 2/)]);
  });
});

describe('final objects and their unpatched render', () => {
  test('no patch: the render itself, not patched', () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg', { data: { a: '1' } });
    const json = o.toJson() as J;
    expect(unpatchedRender(o, json)).toEqual({ patched: false, unpatched: json });
    expect(unpatchedRender(o, json).unpatched).toBe(json);
  });
  test("only rollwise's rendering patches: not patched, and kept", () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg', { data: { a: '1' } });
    const own = renderingPatch(JsonPatch.add('/data/b', '2'));
    o.addJsonPatch(...own);
    expect(isRenderingPatch(own[0])).toBe(true);
    expect(isRenderingPatch(JsonPatch.add('/data/b', '2'))).toBe(false);
    const json = o.toJson() as J;
    expect(unpatchedRender(o, json)).toEqual({ patched: false, unpatched: json });
  });
  test("a user's patch: rendered without it (rollwise's own patches kept), and the patches are restored", () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg', { data: { a: '1' } });
    o.addJsonPatch(JsonPatch.replace('/data/a', 'user'), ...renderingPatch(JsonPatch.add('/data/b', '2')));
    const json = o.toJson() as J;
    expect(json.data).toEqual({ a: 'user', b: '2' });
    const u = unpatchedRender(o, json);
    expect(u.patched).toBe(true);
    expect(u.unpatched?.data).toEqual({ a: '1', b: '2' });
    expect((o.toJson() as J).data).toEqual({ a: 'user', b: '2' });
  });
  test("an object that cannot render without the user's patch: unpatched is undefined, and the patches are restored", () => {
    const app = new App();
    // rollwise's rendering patch on a path only the user's patch creates
    const p = obj(new Chart(app, 'b'), 'x', 'ConfigMap', 'cfg', { data: { a: '1' } });
    p.addJsonPatch(JsonPatch.add('/data/b', { c: 'user' }), ...renderingPatch(JsonPatch.replace('/data/b/c', 'own')));
    const json = p.toJson() as J;
    expect(unpatchedRender(p, json)).toEqual({ patched: true, unpatched: undefined });
    expect((p.toJson() as J).data).toEqual({ a: '1', b: { c: 'own' } });
  });
  test('an object without a patches array (a cdk8s that keeps them elsewhere): not patched, no patch failure', () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg');
    const json = o.toJson() as J;
    delete (o as unknown as { patches?: unknown }).patches;
    expect(unpatchedRender(o, json)).toEqual({ patched: false, unpatched: json });
    expect(patchFailure(o, new Error('boom'))).toBeUndefined();
  });
  test("finalObjects: every object of the subtree, with its unpatched render and whether a user's patch changed it", () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    const s = new Construct(chart, 's');
    obj(s, 'x', 'ConfigMap', 'one', { data: { a: '1' } });
    obj(s, 'y', 'ConfigMap', 'two', { data: { a: '1' } }).addJsonPatch(JsonPatch.replace('/data/a', '2'));
    obj(chart, 'z', 'ConfigMap', 'outside');
    const f = finalObjects(s, renderedApp(render(app)));
    expect(f.objects.map((o) => [(o.metadata as J).name, o.data])).toEqual([
      ['one', { a: '1' }],
      ['two', { a: '2' }],
    ]);
    expect(f.unpatched.map((o) => o?.data)).toEqual([{ a: '1' }, { a: '1' }]);
    expect(f.unpatched[0]).toBe(f.objects[0]);
    expect(f.patched).toEqual([false, true]);
  });
  test("patchFailure: undefined without a user's patch; else the object, its patches and why", () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    const plain = obj(chart, 'x', 'ConfigMap', 'cfg');
    expect(patchFailure(plain, new Error('boom'))).toBeUndefined();
    const own = obj(chart, 'own', 'ConfigMap', 'own');
    own.addJsonPatch(...renderingPatch(JsonPatch.add('/data', {})));
    expect(patchFailure(own, new Error('boom'))).toBeUndefined();
    const o = obj(chart, 'y', 'ConfigMap', 'cfg2');
    o.addJsonPatch(
      JsonPatch.replace('/data/a/b', 'x'),
      ...renderingPatch(JsonPatch.add('/data', {})),
      JsonPatch.remove('/metadata/labels'),
    );
    expect(
      patchFailure(
        o,
        new Error(
          "Failed serializing construct at path 'a/y' with name 'cfg2': TypeError: Cannot set properties of undefined",
        ),
      ),
    ).toBe(
      'ConfigMap/cfg2 (a/y): an escape-hatch patch cannot be applied (replace /data/a/b, remove /metadata/labels): a path in it runs through a field or list item that does not exist in the rendered object, or it sets a value of the wrong type (e.g. a number where the schema has a list). Fix: patch only paths that exist in the rendered object (see dist/ or `rollwise explain`), or use "add" for a new field.',
    );
    expect(
      patchFailure(
        o,
        new Error("Failed serializing construct at path 'a/y' with name 'cfg2': OPERATION_PATH_UNRESOLVABLE"),
      ),
    ).toMatch(
      /^ConfigMap\/cfg2 \(a\/y\): an escape-hatch patch cannot be applied \(replace \/data\/a\/b, remove \/metadata\/labels\): OPERATION_PATH_UNRESOLVABLE\. Fix:/,
    );
    for (const detail of ['x is not a function', 'Cannot read properties of undefined', 'y is not iterable']) {
      expect(patchFailure(o, new Error(detail))).toMatch(
        /: a path in it runs through a field or list item that does not exist/,
      );
    }
    expect(patchFailure(o, new Error("prefix Failed serializing construct at path 'a' with name 'b': x"))).toMatch(
      /\): prefix Failed serializing construct at path 'a' with name 'b': x\. Fix/,
    );
  });
  test('acceptPatchedValue records the reason in overrides and reasons, keeping their other lines', () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg', {
      metadata: {
        name: 'cfg',
        annotations: { 'rollwise.dev/reasons': 'data.b: the old reason for b\ndata.a: rollwise decided a' },
      },
    });
    acceptPatchedValue(o, 'data.a', '  the importer needs this value, reviewed in OPS-1  ');
    const annotations = (o.toJson() as { metadata: { annotations: Record<string, string> } }).metadata.annotations;
    expect(annotations['rollwise.dev/reasons']).toBe(
      'data.a: Patched: the importer needs this value, reviewed in OPS-1\ndata.b: the old reason for b',
    );
    expect(annotations['rollwise.dev/overrides']).toBe(
      'data.a: Patched: the importer needs this value, reviewed in OPS-1',
    );
  });
  test('acceptPatchedValue refuses a path that is not a field path, and a placeholder reason', () => {
    const app = new App();
    const o = obj(new Chart(app, 'a'), 'x', 'ConfigMap', 'cfg');
    expect(() => acceptPatchedValue(o, 'data[', 'the importer needs this value')).toThrow(RollwiseInputError);
    expect(() => acceptPatchedValue(o, 'data[', 'the importer needs this value')).toThrow(/acceptPatch\(path\)/);
    expect(() => acceptPatchedValue(o, 'data.a', 'TODO')).toThrow(/acceptPatch\(data\.a\)\.because/);
    expect(o.toJson()).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' } });
  });
});

describe('INV01 on every object of the app (decided values)', () => {
  const REASONS = 'rollwise.dev/reasons';
  const decided = (scope: Construct, id: string, reasons: string | undefined, data: J = { a: '1', b: '1' }) => {
    const o = obj(scope, id, 'ConfigMap', id, {
      metadata: { name: id, ...(reasons === undefined ? {} : { annotations: { [REASONS]: reasons } }) },
      data,
    });
    registerDecidedValuesCheck(o);
    return o;
  };
  test('a decided value a patch changed is refused at its path, quoting the most specific reason', () => {
    const app = new App();
    const o = decided(new Chart(app, 'a'), 'cfg', 'data: all of it\ndata.a: the reason for a\ndata.ab: not this one');
    o.addJsonPatch(JsonPatch.replace('/data/a', '2'));
    expect(problems(app)).toEqual([
      'INV01-decided-values-unpatched ConfigMap/cfg (a/cfg) data.a: a patch changed data.a from "1" to "2"; rollwise decided data with a reason that would then describe a value that is not there. The reason it would keep claiming: "the reason for a". Fix: remove the patch, or accept the patched value with acceptPatch(object, \'data.a\', \'<why it is right here>\'), which records the reason in rollwise.dev/overrides and rollwise.dev/reasons.',
      expect.stringMatching(
        /^INV01-decided-values-unpatched ConfigMap\/cfg \(a\/cfg\) data\.a: .*rollwise decided data\.a with a reason .* The reason it would keep claiming: "the reason for a"\./,
      ),
    ]);
  });
  test("a list item's path quotes the list's reason; a long reason is shortened", () => {
    const app = new App();
    const long = `the list ${'is decided from measured inputs '.repeat(8)}`.trim();
    const o = decided(new Chart(app, 'a'), 'cfg', `data.list: ${long}\ndata.lis: not this`, {
      list: ['a', 'b'],
      lis: 'x',
    });
    o.addJsonPatch(JsonPatch.replace('/data/list/1', 'c'));
    const [m] = problems(app);
    expect(m).toContain(`data.list[1]: a patch changed data.list[1] from "b" to "c"`);
    expect(m).toContain(`The reason it would keep claiming: "${long.slice(0, 157)}...".`);
    expect(long.length).toBeGreaterThan(160);
  });
  test('a reason of exactly 160 characters is quoted whole; a changed value no reason line names is refused without a quote', () => {
    const app = new App();
    const r160 = 'x'.repeat(150) + ' the reason';
    expect(r160.length).toBe(161);
    const exact = r160.slice(1);
    const o = decided(new Chart(app, 'a'), 'cfg', `data.a: ${exact}`);
    o.addJsonPatch(JsonPatch.replace('/data/a', '2'));
    expect(problems(app)).toEqual([expect.stringContaining(`The reason it would keep claiming: "${exact}".`)]);
  });
  test('a reason line for a parent quotes it for the changed field', () => {
    const app = new App();
    decided(new Chart(app, 'a'), 'cfg', 'data: all of it').addJsonPatch(JsonPatch.replace('/data/b', '2'));
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^INV01-decided-values-unpatched ConfigMap\/cfg \(a\/cfg\) data\.b: .* The reason it would keep claiming: "all of it"\./,
      ),
    ]);
  });
  test('a patch that removes the metadata: still compared, named by kind', () => {
    const app = new App();
    decided(new Chart(app, 'a'), 'cfg', 'data.a: the reason for a').addJsonPatch(
      JsonPatch.remove('/metadata'),
      JsonPatch.replace('/data/a', '2'),
    );
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^INV01-decided-values-unpatched ConfigMap\/\? \(a\/cfg\) data\.a: a patch changed data\.a from "1" to "2"/,
      ),
    ]);
  });
  test('patched objects rollwise decided nothing on: passed, never a crash (no annotations, no metadata, no render without the patch)', () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    decided(chart, 'plain', undefined).addJsonPatch(JsonPatch.replace('/data/a', '2'));
    decided(chart, 'bare', undefined).addJsonPatch(
      ...renderingPatch(JsonPatch.remove('/metadata')),
      JsonPatch.replace('/data/a', '2'),
    );
    const broken = decided(chart, 'broken', undefined);
    broken.addJsonPatch(
      JsonPatch.add('/data/x', { c: 'user' }),
      ...renderingPatch(JsonPatch.replace('/data/x/c', 'own')),
    );
    expect(unpatchedRender(broken, broken.toJson() as J).unpatched).toBeUndefined();
    expect(problems(app)).toEqual([]);
  });
  test('a patch that removes the reasons annotation is still compared with the unpatched reasons', () => {
    const app = new App();
    const o = decided(new Chart(app, 'a'), 'cfg', 'data.a: the reason for a');
    o.addJsonPatch(JsonPatch.remove('/metadata/annotations'), JsonPatch.replace('/data/a', '2'));
    expect(problems(app)).toEqual([
      expect.stringMatching(
        /^INV01-decided-values-unpatched ConfigMap\/cfg \(a\/cfg\) data\.a: a patch changed data\.a from "1" to "2".* The reason it would keep claiming: "the reason for a"\./,
      ),
    ]);
  });
  test("a reasons annotation that is not a string, or only the patch's, is no decision", () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    const o = decided(chart, 'cfg', undefined);
    o.addJsonPatch(
      JsonPatch.add('/metadata/annotations', { [REASONS]: 'data.a: added by the patch' }),
      JsonPatch.replace('/data/a', '2'),
    );
    const p = obj(chart, 'p', 'ConfigMap', 'p', {
      metadata: { name: 'p', annotations: { [REASONS]: 'data.a: r' } },
      data: { a: '1' },
    });
    p.addJsonPatch(JsonPatch.replace('/metadata/annotations/rollwise.dev~1reasons', 7));
    expect(problems(app)).toEqual([]);
  });
  test('no patch, a rollwise rendering patch, or a patch of an undecided value: nothing refused', () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    decided(chart, 'plain', 'data.a: the reason for a');
    decided(chart, 'own', 'data.a: the reason for a').addJsonPatch(
      ...renderingPatch(JsonPatch.replace('/data/a', '2')),
    );
    decided(chart, 'other', 'data.a: the reason for a').addJsonPatch(JsonPatch.replace('/data/b', '2'));
    expect(problems(app)).toEqual([]);
  });
  test('accepted with acceptPatch: not refused; a subtree that checks itself is skipped', () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    const o = decided(chart, 'cfg', 'data.a: the reason for a');
    o.addJsonPatch(JsonPatch.replace('/data/a', '2'));
    acceptPatch(o, 'data.a', 'the importer needs this value, reviewed in OPS-1');
    const self = new Construct(chart, 'self');
    declareDecidedValuesChecked(self);
    decided(new Construct(self, 'deep'), 'mine', 'data.a: the reason for a').addJsonPatch(
      JsonPatch.replace('/data/a', '2'),
    );
    expect(problems(app)).toEqual([]);
    const q = decided(chart, 'q', 'data.a: the reason for a');
    q.addJsonPatch(JsonPatch.replace('/data/a', '2'));
    expect(problems(app)).toEqual([
      expect.stringMatching(/^INV01-decided-values-unpatched ConfigMap\/q \(a\/q\) data\.a:/),
    ]);
  });
  test('the check is added once per app, with the duplicate-object check', () => {
    const app = new App();
    const chart = new Chart(app, 'a');
    const o = decided(chart, 'cfg', 'data.a: the reason for a');
    decided(chart, 'cfg2', 'data.a: the reason for a');
    registerDecidedValuesCheck(chart);
    o.addJsonPatch(JsonPatch.replace('/data/a', '2'));
    obj(chart, 'd1', 'Secret', 's');
    obj(chart, 'd2', 'Secret', 's');
    expect(problems(app)).toEqual([
      expect.stringMatching(/^Secret s on the one cluster .*: written twice/),
      expect.stringMatching(/^INV01-decided-values-unpatched ConfigMap\/cfg \(a\/cfg\) data\.a:/),
    ]);
  });
  test('acceptPatch refuses what is not an ApiObject', () => {
    const app = new App();
    expect(() =>
      acceptPatch(new Construct(app, 'x') as unknown as ApiObject, 'data.a', 'the importer needs this value'),
    ).toThrow(/acceptPatch\(object\)/);
    expect(() => acceptPatch(undefined as unknown as ApiObject, 'data.a', 'the importer needs this value')).toThrow(
      RollwiseInputError,
    );
  });
});
