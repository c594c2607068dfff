import { ADDITIONAL_INDICATORS, MODULE_ORDER, type LciaResult } from '../parse/lcia.js';
import { tableOf } from '../util/memo.js';
import { esc, shown } from './text.js';

type Amount = LciaResult['amounts'][number];
/** Columns by module, then scenario ('' for none): no key string made per amount (about 375 on an EPD's table). */
type ColumnIndex = Map<string, Map<string, number>>;

/** Rank of each module in EN 15804 order; others after them. */
const RANK = new Map(MODULE_ORDER.map((m, i) => [m, i]));
const rank = (m: string) => RANK.get(m) ?? MODULE_ORDER.length;

/**
 * Columns of the results table: every module (and scenario, '' for none) the EPD declares, in EN 15804 order; and
 * their index. One shape for every column (a column with an optional key had a shape of its own for each EPD).
 */
function columns(results: readonly LciaResult[]): { cols: { module: string; scenario: string }[]; index: ColumnIndex } {
  const index: ColumnIndex = new Map();
  const cols: { module: string; scenario: string }[] = [];
  for (const r of results)
    for (const a of r.amounts) {
      const scenario = a.scenario ?? '';
      const byScenario = tableOf(index, a.module);
      if (!byScenario.has(scenario)) {
        byScenario.set(scenario, -1);
        cols.push({ module: a.module, scenario });
      }
    }
  // Distinct columns never compare equal: the order is the comparator's alone, whatever the order they were met in.
  cols.sort((a, b) => rank(a.module) - rank(b.module) || cmpStr(a.module, b.module) || cmpStr(a.scenario, b.scenario));
  for (let i = 0; i < cols.length; i++) index.get(cols[i]!.module)!.set(cols[i]!.scenario, i);
  return { cols, index };
}
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The EPD page's table of LCIA results by module (src/emit/epd-page.ts). Only the EPD document knows them, so the
 * reader renders it while it holds the document's bytes (src/catalog/read.ts); the page's other parts come from the
 * index.
 */
export function lciaTable(results: readonly LciaResult[]): string {
  if (!results.length) return '<p>This EPD declares no LCIA results.</p>';
  const { cols, index } = columns(results);
  const head = cols.map((c) => `<th scope="col">${esc(c.module)}${c.scenario ? `<br><small>${esc(c.scenario)}</small>` : ''}</th>`);
  const row = (r: LciaResult) => {
    // The first amount of each module and scenario, as a search of the list per column would find it.
    const first = new Array<Amount | undefined>(cols.length);
    for (const x of r.amounts) {
      const i = index.get(x.module)!.get(x.scenario ?? '')!;
      if (first[i] === undefined) first[i] = x;
    }
    let cells = '';
    for (const a of first) {
      // An empty epd:amount: the module is declared without a value for this indicator; absent: no amount. Neither is 0.
      cells += `<td>${a === undefined ? '' : a.value === '' ? '<abbr title="no value declared">ND</abbr>' : esc(a.value)}</td>`;
    }
    return `<tr><th scope="row">${shown(r.names) || esc(r.method ?? '')}</th><td>${shown(r.units)}</td>${cells}</tr>`;
  };
  const extra = (r: LciaResult) => ADDITIONAL_INDICATORS.has(r.method ?? '');
  const core = results.filter((r) => !extra(r)).map(row);
  const additional = results.filter(extra).map(row);
  const group = (title: string, rows: string[]) =>
    `<tbody>\n<tr><th colspan="${cols.length + 2}" scope="colgroup" class="group">${title}</th></tr>\n${rows.join('\n')}\n</tbody>`;
  return [
    '<div class="scroll" role="region" aria-labelledby="lcia" tabindex="0"><table>',
    `<thead><tr><th scope="col">Indicator</th><th scope="col">Unit</th>${head.join('')}</tr></thead>`,
    group('Core indicators', core),
    ...(additional.length ? [group('Additional indicators', additional)] : []),
    '</table></div>',
  ].join('\n');
}
