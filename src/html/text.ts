import type { LangText } from '../parse/extract.js';

/** The one HTML escape of the site's pages: text and attribute values (names in EPDs are hostile input). */
export function esc(s: string): string {
  // Most texts (every LCIA amount of a page) need nothing: one test instead of four replacements.
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
const NEEDS_ESCAPE = /[&<>"]/;

const LANG_RE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
/** Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, presentation forms): such a text gets `dir="auto"`. */
const RTL_RE = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
/** A text in its own language (`lang` only when the code is well-formed: it comes from the file) and direction. */
export function inLang(t: LangText, tag = 'span', attrs = ''): string {
  const lang = LANG_RE.test(t.lang) ? ` lang="${esc(t.lang)}"` : '';
  return `<${tag}${attrs}${lang}${RTL_RE.test(t.value) ? ' dir="auto"' : ''}>${esc(t.value)}</${tag}>`;
}
/** The text shown first: English, else the first language given. */
export const best = (ts: readonly LangText[]): LangText | undefined => ts.find((t) => t.lang === 'en') ?? ts[0];

/** The text shown first, in its language; '' when there is none. */
export const shown = (ts: readonly LangText[]): string => {
  const t = best(ts);
  return t ? inLang(t) : '';
};
