/**
 * Reasons wrapped into comment lines of at most COMMENT_WIDTH characters (longer only for a word
 * that long), each line with a leading space for the "#" the YAML writer puts before it. Not part
 * of the package's API (src/index.ts exports comments.ts, not this file).
 */
const COMMENT_WIDTH = 100;

/**
 * A text that wrapBySplit would split only at single spaces: not empty, no whitespace other than
 * " " (JavaScript's \s: tabs, line breaks, no-break and other Unicode spaces), no space first or
 * last and no two spaces together. Reasons usually are such texts (parseReasonLines trims them,
 * formatReasonLines joins their lines), and wrapSimple wraps them without splitting.
 */
const NOT_SIMPLE = /[^\S ]| {2}/;
function isSimple(text: string): boolean {
  return text !== '' && text[0] !== ' ' && text[text.length - 1] !== ' ' && !NOT_SIMPLE.test(text);
}

/** Wraps a reason into comment lines (comments.ts's wrap, without its cache). */
export function wrapUncached(text: string): string {
  return isSimple(text) ? wrapSimple(text) : wrapBySplit(text);
}

/**
 * wrapBySplit's lines for a simple text (isSimple), cut by index: a line is the longest run of
 * words from its start that is at most COMMENT_WIDTH long (it ends at the last space at most
 * COMMENT_WIDTH after its start), or one word alone when that word is longer. The words' greedy
 * fill in wrapBySplit gives the same lines: a word joins the line while the line stays within the
 * width, and a word is never split. test/justify/comments.test.ts compares the two.
 */
function wrapSimple(text: string): string {
  let out = '';
  let start = 0;
  while (text.length - start > COMMENT_WIDTH) {
    // text[start] is a word's first character (not a space), so a space found is after it
    let end = text.lastIndexOf(' ', start + COMMENT_WIDTH);
    if (end < start) {
      end = text.indexOf(' ', start);
      if (end === -1) break;
    }
    out += ` ${text.slice(start, end)}\n`;
    start = end + 1;
  }
  return `${out} ${text.slice(start)}`;
}

/** Wraps any text: split at whitespace runs, each line filled with words up to COMMENT_WIDTH. */
export function wrapBySplit(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > COMMENT_WIDTH) {
      lines.push(` ${line}`);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(` ${line}`);
  return lines.join('\n');
}
