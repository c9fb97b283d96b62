import { lintParsed, LintOptions } from './engine';
import { isManifest, memoryObject } from './source';
import { Finding } from './types';

/**
 * Runs the lint rules on in-memory manifest objects (e.g. what a chart synthesizes). Lines are 0
 * and the file is `<synth>` unless given. Non-objects (and objects without `kind`) are ignored.
 */
export function lintObjects(
  objects: readonly unknown[],
  opts: LintOptions & { readonly file?: string } = {},
): Finding[] {
  const lintable = objects.filter(isManifest).map((o) => memoryObject(o, opts.file));
  return lintParsed(lintable, [], opts).findings;
}

/** The findings that make synth fail: error level, neither suppressed with a reason nor an accepted override. */
export function blockingFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.status === 'open' && f.severity === 'error');
}

/**
 * Throws when the objects have an error-level finding that no override or suppression accepts.
 * The message lists each one: rule, object, field path, values, and the fix.
 */
export function assertSafe(objects: readonly unknown[], opts: LintOptions = {}): void {
  // only errors block: rules that never report one need not run (LintOptions.errorsOnly)
  const blocking = blockingFindings(lintObjects(objects, { ...opts, errorsOnly: true }));
  if (blocking.length === 0) return;
  const lines = blocking.map((f) => {
    const values = Object.entries(f.values)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ');
    return `- ${f.ruleId} ${f.object} ${f.path}: ${f.message}${values ? ` [${values}]` : ''}\n  fix: ${f.fix}`;
  });
  throw new Error(
    `rollwise: ${blocking.length} unsafe value(s) in the synthesized manifests (override the value with a reason, or ` +
      `fix it):\n${lines.join('\n')}`,
  );
}
