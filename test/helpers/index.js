// Shared test helpers: paths, temporary folders, tree listing, example builds.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { build as buildSite } from '../../dist/index.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EXAMPLES = join(ROOT, 'examples');
export const EXAMPLE_DATA = join(EXAMPLES, 'ilcdlib');
export const EXAMPLE_CONFIG = join(EXAMPLES, 'po-node.config.json');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const BIN = join(ROOT, 'bin', 'po-node.js');

/**
 * The success branch of an `{ ok }` result (decodeXml, parseXml, extractDataset, ...); fails the test with the
 * result when it is a failure. Typed, so the tests read `.text`, `.root`, `.dataset` without a cast.
 * @template {{ ok: boolean }} R
 * @param {R} r
 * @param {string} [what] names the input in the failure message
 * @returns {Extract<R, { ok: true }>}
 */
export function success(r, what = 'result') {
  if (!r.ok) assert.unreachable(`${what}: expected success, got ${JSON.stringify(r).slice(0, 500)}`);
  return /** @type {Extract<R, { ok: true }>} */ (r);
}

/**
 * The failure branch of an `{ ok }` result, for a test that expects one (fails the test on success).
 * @template {{ ok: boolean }} R
 * @param {R} r
 * @returns {Extract<R, { ok: false }>}
 */
export function failure(r) {
  if (r.ok) assert.unreachable(`expected a failure, got ${JSON.stringify(r).slice(0, 500)}`);
  return /** @type {Extract<R, { ok: false }>} */ (r);
}

/** As root (CI), permission tests drop to nobody: mode bits stop nobody, not root. */
export const IS_ROOT = process.getuid?.() === 0;
export const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
/** Command prefix that runs node as nobody (root with setpriv), else as this user. */
export function nodeAsNobody() {
  return IS_ROOT && SETPRIV ? [SETPRIV, '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
}

/** Work the builds left after their results (spare, cache save): cleanup() waits for it before removing folders. */
const unsettled = [];
/**
 * po-node's build, remembering the work it leaves after its result: a folder removed while that work still writes
 * into it is made again (the cache saved into it) or fails to go (ENOTEMPTY).
 * @param {import('../../dist/index.js').BuildOptions} opts
 */
export async function build(opts) {
  const r = await buildSite(opts);
  unsettled.push(r.settled);
  return r;
}

/** A fresh temporary folder; removed by cleanup(). */
const made = [];
export function tmp(prefix = 'po-node-test-') {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
export async function cleanup() {
  await Promise.all(unsettled.splice(0));
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Every file below dir as { 'a/b': sha256 } (posix paths, sorted). */
export function tree(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p).split(sep).join('/')] = sha256(readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** Absolute paths of every file below dir. */
export function walkFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** Paths below dir (and dir itself) whose mode is not what a web server user can read: folders 0755, files 0644. */
export function wrongModes(dir) {
  const wrong = [];
  const walk = (p) => {
    const st = lstatSync(p);
    const want = st.isDirectory() ? 0o755 : 0o644;
    if ((st.mode & 0o7777) !== want) wrong.push(`${relative(dir, p) || '.'} ${(st.mode & 0o7777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(dir);
  return wrong;
}

export function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Build the bundled example node into a temporary folder (fixed build time, quiet). */
export async function buildExample(extra = {}) {
  const out = join(tmp(), 'site');
  const result = await build({ config: EXAMPLE_CONFIG, out, now: new Date('2026-01-02T03:04:05Z'), ...extra });
  return { out, result };
}

/** The five real EPDs of the example node, with values read off their XML by hand. */
export const REAL_EPDS = [
  {
    file: 'ibu_with_dependencies/ILCD/processes/2eb43850-0ab2-4068-afe5-218d69a096f8_00.01.000.xml',
    uuid: '2eb43850-0ab2-4068-afe5-218d69a096f8',
    version: '00.01.000',
    names: [
      { lang: 'de', value: '2-Schicht-Parkett' },
      { lang: 'en', value: '2-layer parquet' },
    ],
    classifications: [
      {
        system: 'OEKOBAU.DAT',
        classes: [
          { level: 0, classId: '3', name: 'Holz' },
          { level: 1, classId: '3.3', name: 'Holzböden' },
          { level: 2, classId: '3.3.02', name: 'Parkett' },
        ],
      },
      {
        system: 'IBUCategories',
        classes: [
          { level: 0, name: '02 Bauprodukte' },
          { level: 1, name: 'Produkte aus Bauholz' },
          { level: 2, name: 'Vollholzprodukte' },
        ],
      },
    ],
    location: 'RER',
    referenceYear: '2022',
    validUntil: '2027',
    publicationDate: '2022-10-10',
    typeOfDataSet: 'EPD',
    subType: 'average dataset',
    registrationNumber: 'EPD-HAM-20220202-ICD1-DE',
    owner: { uuid: 'd03e56a5-3a47-4abb-860b-4e06a8311ab3', name: 'Hamberger Flooring GmbH & Co. KG' },
    compliance: ['c0016b33-8cf7-415c-ac6e-deba0d21440d', '4f2eb655-6e44-4874-a95a-e28f5442cd4d'],
    formatVersion: '1.2',
  },
  {
    file: 'environdec_with_dependencies/ILCD/processes/daa1778e-be8f-4d2f-b1b3-c32ca2f0e90d_01.00.001.xml',
    uuid: 'daa1778e-be8f-4d2f-b1b3-c32ca2f0e90d',
    version: '01.00.001',
    names: [{ lang: 'en', value: '12.5 mm Plasterboard Knauf A-ZERO' }],
    classifications: [
      {
        system: 'The International EPD System',
        classes: [
          { level: 0, classId: '2', name: 'Construction products' },
          { level: 1, classId: '2.3', name: 'Boards' },
        ],
      },
    ],
    location: undefined,
    referenceYear: '2020',
    validUntil: '2025',
    publicationDate: undefined,
    typeOfDataSet: 'EPD',
    subType: 'specific dataset',
    registrationNumber: undefined,
    owner: { uuid: '91f89cf7-faeb-4b22-a6e1-95483d429bf5', name: 'Knauf di Knauf S.r.l. s.a.s.' },
    compliance: ['b00f9ec0-7874-11e3-981f-0800200c9a66', '73aef63c-53dc-42e4-8db8-0bbbeb3e8ee3'],
    formatVersion: '1.1',
  },
  {
    file: 'epditaly_with_dependencies/ILCD/processes/8bc0d502-7f9b-43ab-af31-d55d23a708f1_00.00.024.xml',
    uuid: '8bc0d502-7f9b-43ab-af31-d55d23a708f1',
    version: '00.00.024',
    names: [{ lang: 'en', value: 'ECO-ESPANSO K100' }],
    classifications: [
      {
        system: 'CPC 2.1',
        classes: [
          { level: 0, classId: '3', name: 'Other transportable goods, except metal products, machinery and equipment' },
          { level: 1, classId: '37', name: 'Glass and glass products and other non-metallic products n.e.c.' },
        ],
      },
    ],
    location: 'RER',
    referenceYear: '2019',
    validUntil: '2025',
    publicationDate: '2018-08-07',
    typeOfDataSet: 'EPD',
    subType: 'average dataset',
    registrationNumber: 'EPDITALY0029',
    owner: { uuid: 'f8644b7c-8b71-48a2-8f26-b77752825878', name: 'Isolconfort Srl' },
    compliance: ['4f2eb655-6e44-4874-a95a-e28f5442cd4d', 'b00f9ec0-7874-11e3-981f-0800200c9a66'],
    formatVersion: '1.2',
  },
  {
    file: 'epditaly_without_a1a2a3/ILCD/processes/a6ef2d29-49bd-4aaf-ac19-1e3975e4fa51_00.00.039.xml',
    uuid: 'a6ef2d29-49bd-4aaf-ac19-1e3975e4fa51',
    version: '00.00.039',
    names: [{ lang: 'en', value: 'ACCIAI LAMINATI A CALDO VERGELLA' }],
    classifications: [
      {
        system: 'CPC 2.1',
        classes: [
          { level: 0, classId: '4', name: 'Metal products, machinery and equipment' },
          { level: 1, classId: '41', name: 'Basic metals' },
        ],
      },
    ],
    location: 'IT',
    referenceYear: '2020',
    validUntil: '2025',
    publicationDate: '2020-01-16',
    typeOfDataSet: 'EPD',
    subType: 'specific dataset',
    registrationNumber: 'EPDITALY0091',
    owner: { uuid: 'e0ba8e76-92dc-4359-a049-db4018e73b57', name: 'FERRIERE NORD S.p.A.' },
    compliance: ['4f2eb655-6e44-4874-a95a-e28f5442cd4d', 'c0016b33-8cf7-415c-ac6e-deba0d21440d'],
    formatVersion: '1.2',
  },
  {
    file: 'oekobau_with_dependencies/ILCD/processes/ee8863aa-7276-4896-b07a-713937a3134d_00.00.018.xml',
    uuid: 'ee8863aa-7276-4896-b07a-713937a3134d',
    version: '00.00.018',
    names: [
      { lang: 'de', value: 'Abschlüsse - clauss markisen Projekt GmbH - Feuerschutzvorhang' },
      { lang: 'en', value: 'Shutters - clauss markisen Projekt GmbH - Fire curtain' },
    ],
    classifications: [
      {
        system: 'OEKOBAU.DAT',
        classes: [
          { level: 0, classId: '7', name: 'Komponenten von Fenstern und Vorhangfassaden' },
          { level: 1, classId: '7.11', name: 'Zubehör für Fenster, Fassaden, Türen und Tore' },
          { level: 2, classId: '7.11.03', name: 'Feuer-/Rauchschutzsysteme' },
        ],
      },
    ],
    location: 'RER',
    referenceYear: '2019',
    validUntil: '2025',
    publicationDate: undefined,
    typeOfDataSet: 'EPD',
    subType: 'specific dataset',
    registrationNumber: undefined,
    owner: { uuid: '07f76cc0-5969-4f05-8299-a5d5df10fdce', name: 'clauss markisen Projekt GmbH' },
    compliance: ['b00f9ec0-7874-11e3-981f-0800200c9a66'],
    formatVersion: '1.1',
  },
];
