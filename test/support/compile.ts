import * as fs from 'fs';
import * as path from 'path';
import { transformFileSync } from '@swc/core';

export const ROOT = path.join(__dirname, '..', '..');

/**
 * Compiles src/ and imports/ to CommonJS under `out` (swc, about a second) with a node_modules
 * link, for tests that must run the code as node runs the built package: a cdk8s plugin loaded by
 * the real CLI, worker threads (which load compiled files, not TypeScript).
 */
export function compileSrc(out: string): void {
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
      );
  for (const file of [...walk(path.join(ROOT, 'src')), ...walk(path.join(ROOT, 'imports'))]) {
    const { code } = transformFileSync(file, {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    const dest = path.join(out, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, code);
  }
  if (!fs.existsSync(path.join(out, 'node_modules')))
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'), 'dir');
}
