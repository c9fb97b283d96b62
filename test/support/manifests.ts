import { Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test access to arbitrary manifest fields
};

/** Synthesizes one HttpService in its own chart and returns the plain manifest objects. */
export function synthService(props: Partial<HttpServiceProps> = {}, id = 'checkout-api'): Manifest[] {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  new HttpService(chart, id, { ...checkoutApiProps(), ...props });
  return Testing.synth(chart) as Manifest[];
}

/** The service's workload: the Rollout (canary delivery) or the Deployment. */
export function workload(objs: Manifest[]): Manifest {
  const o = objs.find((x) => x.kind === 'Rollout' || x.kind === 'Deployment');
  if (!o) throw new Error(`no workload in ${objs.map((x) => x.kind).join(', ')}`);
  return o;
}

export function find(objs: Manifest[], kind: string, name?: string): Manifest {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`no ${kind}${name ? ` ${name}` : ''} in ${objs.map((x) => x.kind).join(', ')}`);
  return o;
}

export function parseYamlDocs(text: string): Manifest[] {
  return YAML.parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as Manifest);
}

/** The path (keys and indexes) of every scalar in a JSON value, for tests that mutate one place. */
export function leafPaths(o: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(o)) return o.flatMap((x, i) => leafPaths(x, [...prefix, i]));
  if (o && typeof o === 'object') return Object.entries(o).flatMap(([k, x]) => leafPaths(x, [...prefix, k]));
  return [prefix];
}
