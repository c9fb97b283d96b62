import { Finding } from '../rules/types';
import { brief, DiffReport, UnitDiff, ValueChange } from './compare';

export type DiffFormat = 'text' | 'json' | 'markdown';

/** A value as a reviewer reads it: scalars plain, objects as compact JSON (shortened), absence said. */
export function show(v: unknown): string {
  return brief(typeof v === 'string' && v.includes('\n') ? JSON.stringify(v) : v);
}

function headline(r: DiffReport): string {
  const changed = r.units.length;
  if (changed === 0) return `no decided value changed: ${r.unchanged} service file(s) identical`;
  const values = r.units.reduce((n, u) => n + u.values.filter((v) => v.change !== 'reason').length, 0);
  const introduced = r.units.reduce((n, u) => n + u.findingsIntroduced.length, 0);
  const resolved = r.units.reduce((n, u) => n + u.findingsResolved.length, 0);
  const overrides = r.units.reduce((n, u) => n + u.overrides.length, 0);
  return [
    `${changed} service file(s) changed, ${r.unchanged} unchanged`,
    `${values} decided value(s) changed`,
    `${overrides} override change(s)`,
    `lint: ${introduced} finding(s) introduced, ${resolved} resolved`,
  ].join('; ');
}

function valueLine(v: ValueChange): string {
  switch (v.change) {
    case 'changed':
      return `${v.path}: ${show(v.old)} -> ${show(v.new)}`;
    case 'reason':
      return `${v.path}: ${show(v.new)} (value unchanged, reason changed)`;
    case 'added':
      return (
        `${v.path}: now decided ` + `= ${show(v.new)}${v.old !== undefined ? ` (was ${show(v.old)}, undecided)` : ''}`
      );
    case 'removed':
      return (
        `${v.path}: no longer decided ` + `(was ${show(v.old)}${v.new !== undefined ? `, now ${show(v.new)}` : ''})`
      );
  }
}

function findingLine(f: Finding): string {
  return `${f.severity} ${f.ruleId} ${f.object} ${f.path}: ${f.message}${
    f.status !== 'open' ? ` [${f.status}: ${f.justification ?? ''}]` : ''
  }`;
}

function unitIsEmpty(u: UnitDiff): boolean {
  return (
    !u.values.length &&
    !u.overrides.length &&
    !u.fields.length &&
    !u.facts.length &&
    !u.composition.length &&
    !u.objectsAdded.length &&
    !u.objectsRemoved.length &&
    !u.findingsIntroduced.length &&
    !u.findingsResolved.length
  );
}

/** Plain text for a terminal. */
export function formatDiffText(r: DiffReport): string {
  const out = [`rollwise diff: ${r.old} -> ${r.new}`, headline(r)];
  for (const u of r.units) {
    out.push('', u.unit);
    if (unitIsEmpty(u) && u.documents.length === 0)
      out.push('  files changed, but no object did (formatting or comments only)');
    for (const a of u.objectsAdded) out.push(`  + ${a} (new object)`);
    for (const a of u.objectsRemoved) out.push(`  - ${a} (object removed)`);
    const byObject = new Map<string, ValueChange[]>();
    for (const v of u.values) (byObject.get(v.object) ?? byObject.set(v.object, []).get(v.object)!).push(v);
    for (const [object, vs] of byObject) {
      out.push(`  ${object}`);
      for (const v of vs) {
        out.push(`    ${valueLine(v)}`);
        for (const d of v.details ?? []) out.push(`      ${d}`);
        if (v.oldReason !== undefined && v.change !== 'added') out.push(`      was: ${v.oldReason}`);
        if (v.newReason !== undefined && v.change !== 'removed') out.push(`      now: ${v.newReason}`);
      }
    }
    for (const o of u.overrides) {
      out.push(`  override ${o.change}: ${o.object} ${o.path}`);
      if (o.oldBecause !== undefined) out.push(`      was because: ${o.oldBecause}`);
      if (o.newBecause !== undefined) out.push(`      now because: ${o.newBecause}`);
    }
    if (u.facts.length) {
      out.push('  declared inputs:');
      for (const f of u.facts) out.push(`    ${f.object} ${f.path}: ${show(f.old)} -> ${show(f.new)}`);
    }
    if (u.fields.length) {
      out.push('  other fields (no rollwise reason):');
      for (const f of u.fields) out.push(`    ${f.object} ${f.path}: ${show(f.old)} -> ${show(f.new)}`);
      if (u.fieldsNotShown) out.push(`    ... ${u.fieldsNotShown} more`);
    }
    if (u.composition.length) {
      out.push('  composition:');
      for (const c of u.composition) out.push(`    ${c.figure}: ${c.old ?? '(none)'} -> ${c.new ?? '(none)'}`);
    }
    if (u.findingsIntroduced.length || u.findingsResolved.length) {
      out.push('  lint:');
      for (const f of u.findingsIntroduced) out.push(`    new      ${findingLine(f)}`);
      for (const f of u.findingsResolved) out.push(`    resolved ${findingLine(f)}`);
    }
    for (const d of u.documents) out.push(`  ${d}`);
  }
  return `${out.join('\n')}\n`;
}

export function formatDiffJson(r: DiffReport, exitCode: number, failing: readonly string[]): string {
  return `${JSON.stringify({ ...r, exitCode, failing }, null, 2)}\n`;
}

/** A table cell: one line, pipes escaped, long text kept whole (the comment is for reading). */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

function code(text: string): string {
  const t = cell(text);
  return t.includes('`') ? t : `\`${t}\``;
}

export interface MarkdownOptions {
  /**
   * Services shown expanded; the rest are collapsed `<details>` sections.
   * @default 3
   */
  readonly expanded?: number;
  /**
   * Characters at most; services beyond are listed by name. GitHub's API refuses a longer comment
   * with 422 "Body is too long (maximum is 65536 characters)" (its error text, as reported in e.g.
   * renovatebot/renovate#2032 and mshick/add-pr-comment#93); 60,000 leaves room for the summary.
   * @default 60000
   */
  readonly maxChars?: number;
}

function unitMarkdown(u: UnitDiff): string[] {
  const out: string[] = [];
  if (u.objectsAdded.length || u.objectsRemoved.length) {
    out.push(
      ...u.objectsAdded.map((a) => `- added \`${a}\``),
      ...u.objectsRemoved.map((a) => `- **removed** \`${a}\``),
      '',
    );
  }
  const values = u.values.filter((v) => v.change !== 'reason');
  if (values.length) {
    out.push('| object | field | before → after | why (after) | why (before) |', '|---|---|---|---|---|');
    for (const v of values) {
      const what = v.details?.length
        ? v.details.map((d) => code(d)).join('<br>')
        : `${code(show(v.old))} ` + `→ ${code(show(v.new))}`;
      out.push(
        `| ${code(v.object)} | ${code(v.path)} | ${what} | ${cell(v.newReason ?? '(no longer decided)')} ` +
          `| ${cell(v.oldReason ?? '(newly decided)')} |`,
      );
    }
    out.push('');
  }
  const reasons = u.values.filter((v) => v.change === 'reason');
  if (reasons.length)
    out.push(
      `${reasons.length} reason text(s) changed with the value ` +
        `unchanged: ${reasons.map((v) => code(v.path)).join(', ')}`,
      '',
    );
  for (const o of u.overrides) {
    const where = `${code(o.object)} ${code(o.path)}`;
    const because = o.newBecause !== undefined ? `, because: ${cell(o.newBecause)}` : '';
    const was = o.oldBecause !== undefined && o.change !== 'added' ? ` (was: ${cell(o.oldBecause)})` : '';
    out.push(`- **override ${o.change}** on ${where}${because}${was}`);
  }
  if (u.overrides.length) out.push('');
  if (u.composition.length) {
    out.push('| composition | before | after |', '|---|---|---|');
    for (const c of u.composition)
      out.push(`| ${cell(c.figure)} | ${cell(c.old ?? '(none)')} | ${cell(c.new ?? '(none)')} |`);
    out.push('');
  }
  if (u.facts.length) {
    out.push('Declared inputs:', '');
    for (const f of u.facts)
      out.push(`- ${code(f.object)} ${code(f.path)}: ${code(show(f.old))} → ${code(show(f.new))}`);
    out.push('');
  }
  if (u.fields.length) {
    out.push('Other fields (no rollwise reason):', '');
    for (const f of u.fields)
      out.push(`- ${code(f.object)} ${code(f.path)}: ${code(show(f.old))} → ${code(show(f.new))}`);
    if (u.fieldsNotShown) out.push(`- … ${u.fieldsNotShown} more`);
    out.push('');
  }
  if (u.findingsIntroduced.length || u.findingsResolved.length) {
    out.push('Lint:', '');
    for (const f of u.findingsIntroduced)
      out.push(
        '- 🆕 ' +
          `**${f.severity}** ${code(f.ruleId)} ${code(f.object)}: ${cell(f.message)}${
            f.status !== 'open' ? ' ' + `(${f.status}: ${cell(f.justification ?? '')})` : ''
          }`,
      );
    for (const f of u.findingsResolved) out.push(`- ✅ resolved ${f.severity} ${code(f.ruleId)} ${code(f.object)}`);
    out.push('');
  }
  for (const d of u.documents) out.push(`- ${cell(d)}`);
  if (u.documents.length) out.push('');
  if (out.length === 0) out.push('Files changed, but no object did (formatting or comments only).', '');
  return out;
}

/** Markdown for a pull-request comment: a summary, then each changed service. */
export function formatDiffMarkdown(r: DiffReport, failing: readonly string[], opts: MarkdownOptions = {}): string {
  const expanded = opts.expanded ?? 3;
  const maxChars = opts.maxChars ?? 60000;
  const head = ['### rollwise diff', '', `\`${r.old}\` → \`${r.new}\`: ${headline(r)}.`, ''];
  if (failing.length)
    head.push('**This change fails the review gate:**', '', ...failing.map((f) => `- ${cell(f)}`), '');
  let text = head.join('\n');
  const left: string[] = [];
  r.units.forEach((u, i) => {
    const body = unitMarkdown(u).join('\n');
    const section =
      i < expanded
        ? `\n#### ${u.unit}\n\n${body}\n`
        : `\n<details><summary><b>${u.unit}</b>: ${u.values.filter((v) => v.change !== 'reason').length} ` +
          `value(s), ${u.findingsIntroduced.length} new finding(s)</summary>\n\n${body}\n</details>\n`;
    if (left.length || text.length + section.length > maxChars - 400) left.push(u.unit);
    else text += section;
  });
  if (left.length) {
    // The names that still fit; the rest are counted (the whole comment stays under maxChars).
    const tail = ' Run `rollwise diff` locally for all of them.\n';
    let names = '';
    let shown = 0;
    for (const u of left) {
      const next = `${names}${shown ? ', ' : ''}${u}`;
      if (text.length + next.length + tail.length + 120 > maxChars) break;
      names = next;
      shown++;
    }
    const rest = left.length - shown;
    text +=
      `\n${left.length} more changed service file(s) not shown (comment ` +
      `size): ${names}${rest ? `${shown ? ' and ' : ''}${rest} more` : ''}.${tail}`;
  }
  return text;
}
