import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart } from 'cdk8s';
import { HttpService } from '../../src/constructs/http-service';
import { examplePlatform, checkoutApiProps } from '../../src/example';
import { absoluteCitations } from '../../src/justify/citations';
import { headingAnchors } from '../../src/justify/runbook';
import { listFiles } from '../../src/synth/diff';
import { RollwiseApp } from '../../src/synth/rollwise-app';
import { ROOT } from '../support/compile';

const BASE = 'https://github.com/acme/rollwise/blob/v0.1.0/docs/';
const anchors = headingAnchors(fs.readFileSync(path.join(ROOT, 'docs', 'mechanisms.md'), 'utf8'));

test('absoluteCitations turns each anchor of a citation into a link, once', () => {
  const once = absoluteCitations('(docs/mechanisms.md#keep-alive-race, #response-flags).', BASE);
  expect(once).toBe(`(${BASE}mechanisms.md#keep-alive-race, ${BASE}mechanisms.md#response-flags).`);
  expect(absoluteCitations(once, BASE)).toBe(once);
  expect(() => absoluteCitations('x', 'github.com/acme')).toThrow('docsBaseUrl = github.com/acme');
});

test('with docsBaseUrl every citation in the output (comments, annotations, runbook) is an absolute link to a heading', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-docsurl-'));
  try {
    const app = new RollwiseApp({ docsBaseUrl: BASE.slice(0, -1), onWarning: () => undefined });
    new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', {
      ...checkoutApiProps(),
      platform: examplePlatform(undefined, 'https://kubernetes.default.svc'),
    });
    app.synthesize({ outdir: out });
    const files = listFiles(out);
    expect(files).toEqual(['checkout-api.k8s.yaml', 'checkout-api.runbook.md']);
    let links = 0;
    for (const f of files) {
      const text = fs.readFileSync(path.join(out, f), 'utf8');
      expect([f, text.match(/(?<![\w./-])docs\/mechanisms\.md#/g)]).toEqual([f, null]);
      for (const m of text.matchAll(
        /https:\/\/github\.com\/acme\/rollwise\/blob\/v0\.1\.0\/docs\/mechanisms\.md#([a-z0-9-]+)/g,
      )) {
        links++;
        expect(anchors).toContain(m[1]);
      }
    }
    expect(links).toBeGreaterThan(20);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

test('a docsBaseUrl that is no URL fails when the app is made, naming it', () => {
  expect(() => new RollwiseApp({ docsBaseUrl: 'docs/' })).toThrow('docsBaseUrl = docs/');
});
