/**
 * What counts as a reason. Overrides (`because`), accepted patches and lint suppressions are all
 * held to this one rule, so a placeholder cannot stand in for a reason anywhere.
 */

/** The shortest reason accepted: enough for a sentence, not a placeholder like "x" or "ok". */
export const MIN_REASON_LENGTH = 10;

/** Words that mark a reason as not written yet (matched as whole words, case-insensitive). */
const PLACEHOLDER_WORDS = /\b(todo|tbd|tba|fixme|xxx+|placeholder|lorem|ipsum|changeme|asdf|qwerty|blah|n\/a)\b/i;

/**
 * Why `text` is not a reason, or undefined when it is one: too short, a placeholder word (TODO,
 * FIXME, lorem, ...), a run of one repeated character, or too few distinct letters or words.
 */
export function reasonProblem(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.trim() === '') return 'there is none';
  const t = text.trim();
  if (t.length < MIN_REASON_LENGTH) return `"${t}" is shorter than ${MIN_REASON_LENGTH} characters`;
  const placeholder = PLACEHOLDER_WORDS.exec(t);
  if (placeholder) return `"${t}" is a placeholder ("${placeholder[0]}"), not a reason`;
  const run = /([a-z])\1{3,}/i.exec(t);
  if (run) return `"${t}" repeats "${run[1]}", which is a placeholder, not a reason`;
  const letters = new Set(t.toLowerCase().replace(/[^a-z]/g, ''));
  if (letters.size < 5) return `"${t}" uses fewer than 5 distinct letters, which is a placeholder, not a reason`;
  const words = t.split(/\s+/).filter((w) => /[a-z]{2,}/i.test(w));
  if (words.length < 2) return `"${t}" is a single word; a reason says why in a few words`;
  return undefined;
}
