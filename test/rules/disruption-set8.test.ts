/*
 * Held-out set 8, judged (issue 21 round 9): RW601 on a Deployment whose every replica is pinned to
 * one node, judged wrong; the near misses (spread over nodes) must still fire.
 */
import { Finding, lintObjects, lintText } from '../../src/rules';
import { Obj } from './helpers';

const rw601 = (f: Finding[]): Finding[] => f.filter((x) => x.status === 'open' && x.ruleId.startsWith('RW601'));

/** robusta-dev/kubernetes-demos memory_pressure_evictions/demo-deploy.yaml, as published. */
const DEMO = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 5
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
      nodeSelector:
      # Specify the node where you want to induce evictions
        kubernetes.io/hostname: your-host-name
`;

function deployment(spec: Obj): Obj {
  const labels = { app: 'nginx' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx' },
    spec: {
      replicas: 5,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }], ...spec },
      },
    },
  };
}

const hostAffinity = (...terms: string[][]): Obj => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: terms.map((values) => ({
          matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values }],
        })),
      },
    },
  },
});

describe('held-out set 8: replicas pinned to one node (RW601)', () => {
  it('a nodeSelector on kubernetes.io/hostname: no RW601', () => {
    expect(rw601(lintText(DEMO, 'demo-deploy.yaml').findings)).toEqual([]);
  });

  it('near miss: the same Deployment with a nodeSelector on another label still fires', () => {
    const spread = DEMO.replace('kubernetes.io/hostname: your-host-name', 'kubernetes.io/os: linux');
    expect(rw601(lintText(spread, 'demo-deploy.yaml').findings)).toHaveLength(1);
  });

  it('spec.nodeName, or required affinity to one host in every term: no RW601', () => {
    expect(rw601(lintObjects([deployment({ nodeName: 'node-1' })]))).toEqual([]);
    expect(rw601(lintObjects([deployment(hostAffinity(['node-1']))]))).toEqual([]);
    expect(rw601(lintObjects([deployment(hostAffinity(['node-1'], ['node-1']))]))).toEqual([]);
  });

  it('near misses: affinity to two hosts, terms naming different hosts, or NotIn, still fire', () => {
    expect(rw601(lintObjects([deployment(hostAffinity(['node-1', 'node-2']))]))).toHaveLength(1);
    expect(rw601(lintObjects([deployment(hostAffinity(['node-1'], ['node-2']))]))).toHaveLength(1);
    const notIn = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-1'] }] },
            ],
          },
        },
      },
    };
    expect(rw601(lintObjects([deployment(notIn)]))).toHaveLength(1);
  });
});
