import { RollwiseInputError } from '../errors';

/**
 * A citation of the mechanisms doc as reasons, rules and runbooks write it:
 * "docs/mechanisms.md#keep-alive-race" or "docs/mechanisms.md#keep-alive-race, #response-flags".
 * Not matched inside a URL (a citation already made absolute is preceded by "/").
 */
const CITATION = /(?<![\w./-])docs\/mechanisms\.md((?:#[a-z0-9-]+)(?:, #[a-z0-9-]+)*)/g;

/**
 * Checks a docs base URL (the published folder that holds mechanisms.md) and returns it ending
 * in "/".
 */
export function checkDocsBaseUrl(url: string): string {
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(url) || /[#?]/.test(url)) {
    throw new RollwiseInputError(
      'docsBaseUrl',
      url,
      'is not an http(s) URL of a folder: citations would not resolve.',
      'use the published docs folder of this rollwise version, e.g. ' +
        '"https://github.com/acme/rollwise/blob/v0.1.0/docs/".',
    );
  }
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * Rewrites each citation in `text` into absolute links under `docsBaseUrl`:
 * "docs/mechanisms.md#keep-alive-race, #response-flags" ->
 * "<base>mechanisms.md#keep-alive-race, <base>mechanisms.md#response-flags". Idempotent.
 */
export function absoluteCitations(text: string, docsBaseUrl: string): string {
  const base = checkDocsBaseUrl(docsBaseUrl);
  return text.replace(CITATION, (_whole, anchors: string) =>
    anchors
      .split(', ')
      .map((a) => `${base}mechanisms.md${a}`)
      .join(', '),
  );
}
