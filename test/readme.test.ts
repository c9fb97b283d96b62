import * as fs from 'fs';
import * as path from 'path';
import { syncReadme } from '../src/docs/readme';

test('the README sections generated from code are in sync (run `npm run docs`)', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  expect(text).toContain('| uvicorn | `AppServer.uvicorn()` | 5 s | `--timeout-keep-alive` | `3s` | `3s` |');
  expect(syncReadme(text)).toBe(text);
});

test('the README opens with the two commands', () => {
  const lines = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8').split('\n');
  expect(lines.slice(0, 6).join('\n')).toMatch(/```sh\nnpm ci && npm run synth .*\nnpm ci && npm test /);
});
