/**
 * source.ts reads a JSON text that is not a Kubernetes object with JSON.parse, without the yaml
 * package (test/rules/fast-yaml-lint.test.ts shows the two readings alike); a manifest, a key twice
 * and a text JSON.parse refuses still go the package's way.
 */
import * as YAML from 'yaml';
import { parseManifestText } from '../../src/rules/source';

jest.mock('yaml', () => {
  const actual = jest.requireActual<typeof YAML>('yaml');
  return { ...actual, parseAllDocuments: jest.fn(actual.parseAllDocuments) };
});

const parseAll = YAML.parseAllDocuments as jest.Mock;
beforeEach(() => parseAll.mockClear());

test('a package-lock.json and a dashboard: JSON.parse reads them, the package does not', () => {
  const lock = '{\n  "name": "app",\n  "version": "1.0.0",\n  "packages": {"": {"name": "app"}}\n}\n';
  const dashboard = ' \r\n{"title": "API", "panels": [{"type": "graph", "targets": [{"expr": "up"}]}]}';
  for (const t of [lock, dashboard])
    expect(parseManifestText(t, 'x.json')).toEqual({ objects: [], problems: [], documents: 1, notManifests: 1 });
  expect(parseAll).not.toHaveBeenCalled();
});

test('a manifest, a key twice, a missing kind, an array and broken JSON: the package reads them', () => {
  const texts = [
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}}',
    '{"a": "x\\": 1", "b": {"c": 1, "c": 2}}',
    '{"apiVersion": "v1", "metadata": {}}',
    '[{"a": 1}]',
    '{"a": 1,}',
  ];
  for (const t of texts) {
    parseAll.mockClear();
    parseManifestText(t, 'x.json');
    expect([t, parseAll.mock.calls.length > 0]).toEqual([t, true]);
  }
});
