import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readZip, unsafeEntryName } from '../../dist/read/zip.js';
import { DEFAULT_ZIP_LIMITS } from '../../dist/read/zip.js';
import { EXAMPLE_CONFIG, EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp, tree } from '../helpers/index.js';
import { setEntryFlags, zipExports } from '../helpers/zip.js';
import { runCli } from '../helpers/child.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const epdFile = REAL_EPDS[0].file; // ibu_with_dependencies/ILCD/processes/...
const epdXml = readFileSync(join(EXAMPLE_DATA, epdFile));

test.after.each(cleanup);

test('building from ILCD ZIP exports gives the same tree as building from the folders', async () => {
  const zips = tmp();
  zipExports(EXAMPLE_DATA, zips);
  const a = join(tmp(), 'site');
  const b = join(tmp(), 'site');
  const ra = await build({ config: EXAMPLE_CONFIG, out: a, now: NOW });
  const rb = await build({ config: EXAMPLE_CONFIG, inputs: [zips], out: b, now: NOW });
  const ta = tree(a);
  const tb = tree(b);
  assert.ok(Object.keys(ta).length > 170, `only ${Object.keys(ta).length} files`);
  assert.equal(Object.keys(tb), Object.keys(ta));
  assert.equal(tb, ta);
  assert.is(rb.summary.epds, 5);
  assert.is(rb.summary.datasets, ra.summary.datasets);
  // Findings about ZIP entries name the archive and the entry.
  const f = rb.findings.find(
    (x) => x.ruleId === 'reference-missing' && x.entry?.endsWith('f80e7199-ba68-4fc0-8f99-9c2add485611_00.01.000.xml'),
  );
  assert.ok(f, 'missing IBU PDF reported for the zip entry');
  assert.is(f.file.endsWith('ibu_with_dependencies.zip'), true);
});

function hostileZip(dir) {
  const big = new Uint8Array(8 * 1024 * 1024); // zeros: deflates ~1000:1
  let zip = zipSync({
    'ILCD/processes/good.xml': epdXml,
    '../evil.xml': epdXml,
    '/abs/evil.xml': epdXml,
    'ILCD\\processes\\win.xml': epdXml,
    'ILCD/processes/bomb.xml': big,
    'ILCD/processes/secret.xml': epdXml,
  });
  zip = setEntryFlags(zip, 'ILCD/processes/secret.xml', 0x1);
  const path = join(dir, 'hostile.zip');
  writeFileSync(path, zip);
  return path;
}

test('hostile entries are refused with findings; good entries are still read', async () => {
  const dir = tmp();
  const inputs = join(dir, 'in');
  mkdirSync(inputs);
  hostileZip(inputs);
  const out = join(dir, 'site');
  const r = await build({ inputs: [inputs], out, now: NOW, cwd: dir });
  const by = (rule) => r.findings.filter((f) => f.ruleId === rule).map((f) => f.entry);
  assert.equal(by('zip-entry-unsafe').sort(), ['../evil.xml', '/abs/evil.xml', 'ILCD\\processes\\win.xml'].sort());
  assert.equal(by('zip-entry-ratio'), ['ILCD/processes/bomb.xml']);
  assert.equal(by('zip-entry-encrypted'), ['ILCD/processes/secret.xml']);
  for (const f of r.findings.filter((x) => x.ruleId.startsWith('zip-'))) {
    assert.is(f.severity, 'error');
    assert.is(f.file, 'in/hostile.zip');
  }
  assert.is(r.summary.epds, 1, 'the good entry is published');
  assert.ok(existsSync(join(out, 'resource/processes', REAL_EPDS[0].uuid)));
  assert.not.ok(existsSync(join(dir, 'evil.xml')));
  assert.not.ok(existsSync('/abs/evil.xml'));
});

test('size limits are configurable: a low total limit stops reading with a finding', async () => {
  const dir = tmp();
  const zip = join(dir, 'a.zip');
  writeFileSync(zip, zipSync({ 'ILCD/processes/a.xml': epdXml, 'ILCD/processes/b.xml': epdXml }));
  const r = await readZip(
    { path: 'a.zip', abs: zip, size: readFileSync(zip).length, kind: 'zip' },
    { ...DEFAULT_ZIP_LIMITS, maxTotalSize: epdXml.length + 10 },
  );
  assert.is(r.files.length, 1);
  assert.equal(
    r.findings.map((f) => [f.ruleId, f.entry]),
    [['zip-too-large', 'ILCD/processes/b.xml']],
  );
  const small = await readZip({ path: 'a.zip', abs: zip, size: 10_000_000, kind: 'zip' }, { ...DEFAULT_ZIP_LIMITS, maxArchiveSize: 1000 });
  assert.is(small.files.length, 0);
  assert.is(small.findings[0].ruleId, 'zip-too-large');
});

test('an entry that inflates beyond its declared size is refused when read', async () => {
  const dir = tmp();
  const zip = Buffer.from(zipSync({ 'ILCD/processes/a.xml': epdXml }));
  // Lower the central directory's uncompressed size: the inflater must stop at the declared size.
  const cd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zip.writeUInt32LE(100, cd + 24);
  writeFileSync(join(dir, 'lie.zip'), zip);
  const r = await build({ inputs: ['lie.zip'], out: join(dir, 'site'), now: NOW, cwd: dir });
  const errors = r.findings.filter((f) => f.severity === 'error').map((f) => [f.ruleId, f.entry]);
  assert.equal(errors, [['zip-entry-corrupt', 'ILCD/processes/a.xml']]);
  assert.match(r.findings.find((f) => f.ruleId === 'zip-entry-corrupt').message, /more than its declared 100 bytes/);
  assert.is(r.summary.rejected, 1);
});

test('the uncompressed budget is shared by all archives of a build', async () => {
  const dir = tmp();
  for (const n of ['a', 'b']) writeFileSync(join(dir, `${n}.zip`), zipSync({ [`ILCD/processes/${n}.xml`]: epdXml }));
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify({ limits: { maxZipTotalSizeMB: (epdXml.length * 1.5) / 1024 / 1024 } }));
  const r = await build({ inputs: ['a.zip', 'b.zip'], out: join(dir, 'site'), now: NOW, cwd: dir });
  // Each archive alone is within the budget; together they are not.
  assert.equal(
    r.findings.filter((f) => f.ruleId === 'zip-too-large').map((f) => [f.file, f.entry]),
    [['b.zip', 'ILCD/processes/b.xml']],
  );
  assert.is(r.summary.epds, 1);
});

test("entries are inflated one at a time: peak RSS stays far below the archives' contents", async () => {
  // Two 80 kB archives of 8 x 40 MB entries each (within every per-entry limit; zeros, so the ratio limit is raised):
  // 640 MB unpacked. Entries used to be inflated in memory while listing (peak RSS over 700 MB).
  const dir = tmp();
  const zeros = new Uint8Array(40 * 1024 * 1024);
  const entries = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`ILCD/processes/e${i}.xml`, zeros]));
  const zip = zipSync(entries, { level: 1 });
  for (const n of ['a', 'b']) writeFileSync(join(dir, `${n}.zip`), zip);
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify({ limits: { maxZipRatio: 100000 } }));
  const r = await runCli(['build', 'a.zip', 'b.zip', '--out', 'site', '--json'], { cwd: dir, env: { PO_NODE_THREADS: '1' } });
  assert.ok(r.rssMB !== undefined, r.err);
  const report = JSON.parse(r.out);
  assert.is(report.summary.rejected, 16, 'every entry read and rejected (zeros are not UTF-8 XML)');
  assert.ok(r.rssMB < 400, `peak RSS ${r.rssMB.toFixed(0)} MB`);
});

test('a file that is not a ZIP is reported, not thrown', async () => {
  const dir = tmp();
  const p = join(dir, 'x.zip');
  writeFileSync(p, 'not a zip at all');
  const r = await readZip({ path: 'x.zip', abs: p, size: 16, kind: 'zip' }, DEFAULT_ZIP_LIMITS);
  assert.equal(
    r.findings.map((f) => f.ruleId),
    ['zip-malformed'],
  );
});

test('unsafeEntryName accepts ILCD paths with spaces and non-ASCII, refuses escapes', () => {
  assert.is(unsafeEntryName('ILCD/external_docs/PCR ICMQ-001-15_Rev  3_021219.pdf'), undefined);
  assert.is(unsafeEntryName('ILCD/external_docs/Prüfbericht ä.pdf'), undefined);
  for (const bad of ['../x', 'a/../../x', '/x', 'C:/x', 'a\\b', 'a\u0000b']) assert.ok(unsafeEntryName(bad), bad);
});

test.run();
