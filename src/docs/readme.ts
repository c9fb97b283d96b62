import { keepAliveTable } from './keep-alive-table';

/** README sections generated from code, between `<!-- generated:<name>:start -->` and `:end -->` markers. */
export const GENERATED_SECTIONS: Record<string, () => string> = {
  'keep-alive-table': keepAliveTable,
};

/** Returns the README text with every generated section replaced by its current content. */
export function syncReadme(text: string): string {
  let out = text;
  for (const [name, generate] of Object.entries(GENERATED_SECTIONS)) {
    const start = `<!-- generated:${name}:start -->`;
    const end = `<!-- generated:${name}:end -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`README has no ${start} ... ${end} block`);
    out = `${out.slice(0, i + start.length)}\n${generate().trim()}\n${out.slice(j)}`;
  }
  return out;
}
