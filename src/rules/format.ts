import * as fs from 'fs';
import * as path from 'path';
import { allRules } from './catalogue';
import { LintResult } from './engine';
import { Finding, Severity, Skip } from './types';

export type OutputFormat = 'text' | 'json' | 'sarif';

function where(f: Finding): string {
  return f.line > 0 ? `${f.file}:${f.line}` : f.file;
}

function objectLabel(f: Finding): string {
  return f.namespace ? `${f.kind}/${f.namespace}/${f.name}` : `${f.kind}/${f.name}`;
}

/**
 * Human output: one line per finding (`file:line severity rule-id kind/name path: message`), then
 * its mechanism and fix indented; a blank line between objects. Suppressed and accepted findings
 * are listed with their reason and do not count.
 */
export function formatText(result: LintResult, skips?: readonly Skip[]): string {
  const lines: string[] = [];
  let last = '';
  for (const f of result.findings) {
    const obj = `${f.file}\u0000${f.object}`;
    if (last && obj !== last) lines.push('');
    last = obj;
    const state = f.status === 'open' ? f.severity : `${f.severity} (${f.status}: ${f.justification})`;
    lines.push(`${where(f)} ${state} ${f.ruleId} ${objectLabel(f)}${f.path ? ` ${f.path}` : ''}: ${f.message}`);
    if (f.status === 'open') {
      lines.push(`    why: ${f.mechanism}`);
      lines.push(`    fix: ${f.fix}`);
    }
  }
  if (skips && skips.length > 0) {
    if (lines.length) lines.push('');
    lines.push(`skipped (${skips.length}): rules that lacked a fact`);
    for (const s of skips) lines.push(`  ${s.file} ${s.ruleId} ${s.object}: ${s.detail}`);
  }
  const c = counts(result.findings);
  if (lines.length) lines.push('');
  lines.push(`${result.objects} object(s): ${c.error} error(s), ${c.warning} warning(s), ${c.info} info, ${c.suppressed} suppressed, ${c.accepted} accepted override(s)`);
  return `${lines.join('\n')}\n`;
}

export function counts(findings: readonly Finding[]): Record<Severity | 'suppressed' | 'accepted', number> {
  const c = { error: 0, warning: 0, info: 0, suppressed: 0, accepted: 0 };
  for (const f of findings) {
    if (f.status === 'open') c[f.severity]++;
    else c[f.status]++;
  }
  return c;
}

/** Machine output: findings, counts, and the skips when asked for. */
export function formatJson(result: LintResult, exitCode: number, skips?: readonly Skip[]): string {
  return `${JSON.stringify({ tool: 'rollwise', version: toolVersion(), objects: result.objects, summary: counts(result.findings), exitCode, findings: result.findings, ...(skips ? { skips } : {}) }, null, 2)}\n`;
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** A SARIF 2.1.0 log for code-scanning upload; file paths relative to `baseDir` (default: cwd). */
export function formatSarif(result: LintResult, skips?: readonly Skip[], baseDir = process.cwd()): string {
  const rules = allRules();
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const results = result.findings.map((f) => ({
    ruleId: f.ruleId,
    ruleIndex: ruleIndex.get(f.ruleId)!,
    level: SARIF_LEVEL[f.severity],
    message: { text: `${objectLabel(f)}${f.path ? ` ${f.path}` : ''}: ${f.message} Fix: ${f.fix}` },
    locations: [{
      physicalLocation: {
        artifactLocation: { uri: artifactUri(f.file, baseDir) },
        ...(f.line > 0 ? { region: { startLine: f.line } } : {}),
      },
      logicalLocations: [{ fullyQualifiedName: `${objectLabel(f)}${f.path ? `#${f.path}` : ''}`, kind: 'object' }],
    }],
    partialFingerprints: { rollwiseObjectPath: `${f.ruleId}|${objectLabel(f)}|${f.path}` },
    properties: { values: f.values, object: objectLabel(f), path: f.path },
    ...(f.status !== 'open' ? { suppressions: [{ kind: 'inSource', justification: f.justification ?? '' }] } : {}),
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'rollwise',
          version: toolVersion(),
          informationUri: 'https://github.com/rollwise/rollwise/blob/main/docs/rules.md',
          rules: rules.map((r) => ({
            id: r.id,
            name: r.id.replace(/^RW\d+-/, ''),
            shortDescription: { text: r.title },
            fullDescription: { text: `${r.mechanism} (${r.fieldNotes})` },
            help: { text: `Fix: ${r.fix}`, markdown: `**Why:** ${r.mechanism} (${r.fieldNotes})\n\n**Fix:** ${r.fix}` },
            defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
            properties: { tags: ['kubernetes', 'reliability'], facts: [...r.facts] },
          })),
        },
      },
      invocations: [{
        executionSuccessful: true,
        toolExecutionNotifications: (skips ?? []).map((s) => ({ level: 'note', message: { text: `${s.ruleId} skipped for ${s.object}: ${s.detail}` }, descriptor: { id: s.ruleId } })),
      }],
      results,
    }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function artifactUri(file: string, baseDir: string): string {
  if (file.startsWith('<')) return file.replace(/[<>]/g, '');
  const rel = path.isAbsolute(file) ? path.relative(baseDir, file) : file;
  return encodeURI(rel.split(path.sep).join('/'));
}

let version: string | undefined;

/** The package version, read from the nearest package.json named rollwise (works from src/ and lib/). */
export function toolVersion(): string {
  if (version) return version;
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const p = path.join(dir, 'package.json');
    if (fs.existsSync(p)) {
      const pkg = JSON.parse(fs.readFileSync(p, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'rollwise' && pkg.version) return (version = pkg.version);
    }
    dir = path.dirname(dir);
  }
  return (version = '0.0.0');
}
