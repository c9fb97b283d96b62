import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { allRules } from './catalogue';
import { LintResult } from './engine';
import { Finding, Severity, Skip } from './types';

export type OutputFormat = 'text' | 'json' | 'sarif';

/** What a run read: files, and the ones it left out and why. */
export interface ScanSummary {
  /** Files read. */
  files: number;
  /** Files and folders left out by --exclude or .rollwiseignore. */
  excluded: number;
  /** Files that are Go/Helm templates (not read as YAML). */
  templates: number;
  /** Files with no Kubernetes object (values files, JSON Schemas, OpenAPI documents). */
  notManifests: number;
  /** Files that could not be read (each is an RW000 finding too). */
  unreadable: number;
}

/** "2 Helm templates, 3 without Kubernetes objects" (empty when nothing was skipped). */
export function describeSkippedFiles(scan: ScanSummary): string {
  return [
    scan.excluded ? `${scan.excluded} excluded` : '',
    scan.templates ? `${scan.templates} Helm/Go template(s) skipped` : '',
    scan.notManifests ? `${scan.notManifests} without Kubernetes objects skipped` : '',
    scan.unreadable ? `${scan.unreadable} unreadable` : '',
  ]
    .filter((x) => x !== '')
    .join(', ');
}

/** "Job 3, CronJob 1" from the kinds no rule checks, most first. */
function describeKinds(kinds: Readonly<Record<string, number>>): string {
  return Object.entries(kinds)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

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
export function formatText(result: LintResult, skips?: readonly Skip[], scan?: ScanSummary): string {
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
  if (scan) {
    const skipped = describeSkippedFiles(scan);
    const kinds = describeKinds(result.skippedKinds);
    lines.push(`${scan.files} file(s) read${skipped ? ` (${skipped})` : ''}; kinds no rule checks: ${kinds || 'none'}`);
  }
  lines.push(
    `${result.objects} object(s): ${c.error} error(s), ${c.warning} warning(s), ${c.info} info, ${c.suppressed} ` +
      `suppressed, ${c.accepted} accepted override(s)`,
  );
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
export function formatJson(result: LintResult, exitCode: number, skips?: readonly Skip[], scan?: ScanSummary): string {
  return `${JSON.stringify(
    {
      tool: 'rollwise',
      version: toolVersion(),
      objects: result.objects,
      summary: counts(result.findings),
      exitCode,
      ...(scan ? { scan } : {}),
      skippedKinds: result.skippedKinds,
      findings: result.findings,
      ...(skips ? { skips } : {}),
    },
    null,
    2,
  )}\n`;
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** The id under which artifact URIs are relative (SARIF 2.1.0 3.14.14, originalUriBaseIds). */
const SRCROOT = 'SRCROOT';

function sarifRules(): unknown[] {
  return allRules().map((r) => ({
    id: r.id,
    name: r.id.replace(/^RW\d+-/, ''),
    shortDescription: { text: r.title },
    fullDescription: { text: `${r.mechanism} (${r.fieldNotes})` },
    help: { text: `Fix: ${r.fix}`, markdown: `**Why:** ${r.mechanism} (${r.fieldNotes})\n\n**Fix:** ${r.fix}` },
    defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
    properties: { tags: ['kubernetes', 'reliability'], facts: [...r.facts] },
  }));
}

function sarifLog(
  baseDir: string,
  results: unknown[],
  invocation: Record<string, unknown>,
  properties?: Record<string, unknown>,
): string {
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'rollwise',
            version: toolVersion(),
            informationUri: 'https://github.com/rollwise/rollwise/blob/main/docs/rules.md',
            rules: sarifRules(),
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(path.resolve(baseDir)).href.replace(/\/?$/, '/') } },
        invocations: [invocation],
        results,
        ...(properties ? { properties } : {}),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/**
 * A SARIF 2.1.0 log for code-scanning upload. Artifact URIs are relative to `baseDir` (the
 * repository root of the linted paths, else the working directory) with `uriBaseId` SRCROOT; files
 * outside it get absolute file: URIs.
 */
export function formatSarif(
  result: LintResult,
  skips?: readonly Skip[],
  baseDir = process.cwd(),
  scan?: ScanSummary,
): string {
  const ruleIndex = new Map(allRules().map((r, i) => [r.id, i]));
  const results = result.findings.map((f) => ({
    ruleId: f.ruleId,
    ruleIndex: ruleIndex.get(f.ruleId)!,
    level: SARIF_LEVEL[f.severity],
    message: { text: `${objectLabel(f)}${f.path ? ` ${f.path}` : ''}: ${f.message} Fix: ${f.fix}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: artifactLocation(f.file, baseDir),
          ...(f.line > 0 ? { region: { startLine: f.line } } : {}),
        },
        logicalLocations: [{ fullyQualifiedName: `${objectLabel(f)}${f.path ? `#${f.path}` : ''}`, kind: 'object' }],
      },
    ],
    partialFingerprints: { rollwiseObjectPath: `${f.ruleId}|${objectLabel(f)}|${f.path}` },
    properties: {
      values: f.values,
      object: objectLabel(f),
      path: f.path,
      ...(f.render !== undefined ? { render: f.render } : {}),
    },
    ...(f.status !== 'open' ? { suppressions: [{ kind: 'inSource', justification: f.justification ?? '' }] } : {}),
  }));
  const invocation = {
    executionSuccessful: true,
    toolExecutionNotifications: (skips ?? []).map((s) => ({
      level: 'note',
      message: { text: `${s.ruleId} skipped for ${s.object}: ${s.detail}` },
      descriptor: { id: s.ruleId },
    })),
  };
  return sarifLog(
    baseDir,
    results,
    invocation,
    scan ? { scan, skippedKinds: result.skippedKinds, objects: result.objects } : undefined,
  );
}

/** A valid SARIF log for a run that could not lint (exit 2): no results, the problem as an error notification. */
export function formatSarifFailure(message: string, baseDir = process.cwd()): string {
  return sarifLog(baseDir, [], {
    executionSuccessful: false,
    exitCode: 2,
    toolExecutionNotifications: [{ level: 'error', message: { text: message } }],
  });
}

function artifactLocation(file: string, baseDir: string): { uri: string; uriBaseId?: string } {
  if (file.startsWith('<')) return { uri: file.replace(/[<>]/g, '') };
  const abs = path.resolve(file);
  const rel = path.relative(path.resolve(baseDir), abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return { uri: pathToFileURL(abs).href };
  return { uri: encodeURI(rel.split(path.sep).join('/')), uriBaseId: SRCROOT };
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
