import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { lintObjects, blockingFindings } from '../../src/rules/synth-check';
import { lintText, manifestFiles } from '../../src/rules/run-lint';
import { RULES } from '../../src/rules';
import { Finding } from '../../src/rules/types';
import { cleanDeployment } from './helpers';

/*
 * LintOptions.errorsOnly (synth's lint) leaves out the rules whose findings are never errors. It
 * gives the same errors as a full run only if (1) a rule never reports above its own severity,
 * (2) an unreadable fact, which any rule reading it reports as an error (RW903), turns the mode
 * off, and (3) the facts are checked the way the rules read them. The first two tests read the
 * rules' source for (1) and (3); the others compare the errors of both modes on inputs that hold
 * errors (the synthesized estates hold none, so they could not tell the modes apart).
 */

const root = path.join(__dirname, '..', '..');
const rulesDir = path.join(root, 'src', 'rules');
const severityOf = new Map(RULES.map((r) => [r.id, r.severity]));

/** A severity expression that can only be below error: 'info', 'warning', undefined (the rule's own), or a choice of those. */
function belowError(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e)) return belowError(e.expression);
  if (ts.isStringLiteral(e)) return e.text === 'info' || e.text === 'warning';
  if (ts.isIdentifier(e)) return e.text === 'undefined';
  if (ts.isConditionalExpression(e)) return belowError(e.whenTrue) && belowError(e.whenFalse);
  return false;
}

/** The id of the rule literal (`{ id: 'RW...', ... }`) around a node, if it is written in one. */
function ruleAround(n: ts.Node): string | undefined {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
    if (!ts.isObjectLiteralExpression(p)) continue;
    for (const prop of p.properties)
      if (
        ts.isPropertyAssignment(prop) &&
        prop.name.getText() === 'id' &&
        ts.isStringLiteral(prop.initializer) &&
        prop.initializer.text.startsWith('RW')
      )
        return prop.initializer.text;
  }
  return undefined;
}

function sources(): ts.SourceFile[] {
  return (
    fs
      .readdirSync(rulesDir)
      // the files that define rules (validation-plugin.ts's report is cdk8s' validation report)
      .filter((f) => f.endsWith('-rules.ts') || f === 'engine.ts' || f === 'rule.ts')
      .map((f) => ts.createSourceFile(f, fs.readFileSync(path.join(rulesDir, f), 'utf8'), ts.ScriptTarget.Latest, true))
  );
}

function visit(n: ts.Node, f: (n: ts.Node) => void): void {
  f(n);
  ts.forEachChild(n, (c) => visit(c, f));
}

test('a rule below error never reports an error: every severity passed to report() is checked', () => {
  const raised: string[] = [];
  let calls = 0;
  for (const src of sources()) {
    visit(src, (n) => {
      if (!ts.isPropertyAccessExpression(n) || n.name.text !== 'report') return;
      const where = `${src.fileName}:${src.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
      // report is only called (never passed on, where its severities could not be read here)
      if (!ts.isCallExpression(n.parent) || n.parent.expression !== n) {
        if (!/^(push|ctx)$/.test(n.expression.getText())) raised.push(`${where}: report used, not called`);
        return;
      }
      calls++;
      const severity = n.parent.arguments[4];
      if (!severity || belowError(severity)) return;
      const id = ruleAround(n);
      if (id === undefined || severityOf.get(id) !== 'error')
        raised.push(`${where} (${id ?? 'no rule literal'}): ${severity.getText()}`);
    });
  }
  expect(calls).toBeGreaterThan(30);
  expect(raised).toEqual([]);
});

test('the facts are checked as the rules read them (facts.ts readFact)', () => {
  const reads: string[] = [];
  for (const src of sources()) {
    visit(src, (n) => {
      if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) return;
      const m = n.expression;
      if (!/\bfacts$/.test(m.expression.getText()) || !['number', 'bool', 'raw'].includes(m.name.text)) return;
      reads.push(
        `${m.name.text}(${n.arguments
          .slice(1)
          .map((a) => a.getText())
          .join(', ')})`,
      );
    });
  }
  // facts.ts readFact: a boolean, a number that may be none/unlimited, or a positive number
  const expected = new Set([
    "bool('readinessCallsDependency')",
    "number('appKeepAliveSeconds', true)",
    "number('readinessP99Seconds')",
    "number('peakRps')",
    "number('saturationRpsPerReplica')",
  ]);
  expect(reads.length).toBeGreaterThan(5);
  expect(reads.filter((r) => !expected.has(r))).toEqual([]);
});

const errors = (findings: readonly Finding[]) =>
  blockingFindings(findings).map((f) => `${f.ruleId} ${f.object} ${f.path}: ${f.message}`);

test('the same errors on the lint fixtures, without the warnings of the rules left out', () => {
  const files = manifestFiles(path.join(root, 'test', 'fixtures'));
  expect(files.length).toBeGreaterThan(10);
  let withErrors = 0;
  let warningsLeftOut = 0;
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    const full = lintText(text, f).findings;
    const some = lintText(text, f, { errorsOnly: true }).findings;
    expect(errors(some)).toEqual(errors(full));
    if (errors(full).length > 0) withErrors++;
    // the warnings of the rules left out are not computed at all
    if (some.length < full.length) warningsLeftOut++;
  }
  expect(withErrors).toBeGreaterThan(3);
  expect(warningsLeftOut).toBeGreaterThan(3);
});

test('an unreadable fact turns the mode off: RW903 is reported either way', () => {
  // readiness-p99-seconds is read and reported unreadable only by RW101, a warning; "fast" is no number
  const d = cleanDeployment();
  d.metadata.annotations['rollwise.dev/readiness-p99-seconds'] = 'fast';
  const all = errors(lintObjects([d]));
  expect(all.some((e) => e.startsWith('RW903'))).toBe(true);
  expect(errors(lintObjects([d], { errorsOnly: true }))).toEqual(all);
});
