import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXAMPLE_DATA, REAL_EPDS, build, buildExample, cleanup, sha256, tmp } from '../helpers/index.js';

test.after.each(cleanup);

test('ZIP exports are deterministic: same bytes whatever the build time', async () => {
  const a = await buildExample({ now: new Date('2026-01-02T03:04:05Z'), zipExport: true });
  const b = await buildExample({ now: new Date('2030-06-07T08:09:10Z'), zipExport: true });
  for (const e of REAL_EPDS) {
    const p = `resource/processes/${e.uuid}_files/zipexport.zip`;
    assert.is(sha256(readFileSync(join(a.out, p))), sha256(readFileSync(join(b.out, p))), p);
  }
});

test('a digital file with a non-ASCII name inside a ZIP input is served under its source', async () => {
  const srcPath = join(EXAMPLE_DATA, 'ibu_with_dependencies/ILCD/sources/f80e7199-ba68-4fc0-8f99-9c2add485611_00.01.000.xml');
  const xml = readFileSync(srcPath, 'utf8').replace(
    "uri='2-Schicht-Parkett_14798.pdf'",
    "uri='../external_docs/Pr%C3%BCfbericht%20%C3%A4.pdf'",
  );
  assert.ok(xml.includes('Pr%C3%BCfbericht'), 'fixture edit applied');
  const doc = Buffer.from('%PDF-1.4 test document\n');
  const dir = tmp();
  writeFileSync(
    join(dir, 'export.zip'),
    zipSync({
      'ILCD/processes/epd.xml': readFileSync(join(EXAMPLE_DATA, REAL_EPDS[0].file)),
      'ILCD/sources/f80e7199-ba68-4fc0-8f99-9c2add485611_00.01.000.xml': Buffer.from(xml),
      'ILCD/external_docs/Prüfbericht ä.pdf': doc,
      'ILCD/external_docs/unused.png': doc,
    }),
  );
  const out = join(dir, 'site');
  const r = await build({ inputs: [join(dir, 'export.zip')], out, cwd: dir, now: new Date('2026-01-02T03:04:05Z'), zipExport: true });
  const served = join(out, 'resource/sources/f80e7199-ba68-4fc0-8f99-9c2add485611_files/Prüfbericht ä.pdf');
  assert.ok(existsSync(served));
  assert.ok(readFileSync(served).equals(doc));
  // It is this EPD's original-EPD source: the PDF of the EPD too, and part of its ZIP export.
  assert.ok(readFileSync(join(out, `resource/processes/${REAL_EPDS[0].uuid}_files/epd.pdf`)).equals(doc));
  const entries = unzipSync(readFileSync(join(out, `resource/processes/${REAL_EPDS[0].uuid}_files/zipexport.zip`)));
  assert.ok(Buffer.from(entries['ILCD/external_docs/Prüfbericht ä.pdf']).equals(doc));
  assert.ok(entries['ILCD/sources/f80e7199-ba68-4fc0-8f99-9c2add485611_00.01.000.xml']);
  assert.equal(
    r.findings.filter((f) => f.ruleId === 'document-unreferenced').map((f) => [f.file, f.entry, f.severity]),
    [['export.zip', 'ILCD/external_docs/unused.png', 'info']],
  );
  assert.not.ok(
    r.findings.some((f) => f.ruleId === 'reference-missing' && f.message.includes('Pr')),
    'resolved',
  );
});

test('list documents exist for every other dataset type, one entry per published dataset', async () => {
  const { out, result } = await buildExample();
  const counts = { flows: 0, flowproperties: 0, unitgroups: 0, contacts: 0, sources: 0 };
  for (const folder of Object.keys(counts)) {
    const uuids = readdirSync(join(out, 'resource', folder))
      .filter((n) => /^[0-9a-f-]{36}$/.test(n))
      .sort();
    const xml = readFileSync(join(out, 'resource', folder, 'index.xml'), 'utf8');
    const listed = [...xml.matchAll(/<serviceapi:uuid>([^<]+)</g)].map((m) => m[1]).sort();
    assert.equal(listed, uuids, folder);
    assert.ok(xml.includes(`serviceapi:totalSize="${uuids.length}"`));
    const json = JSON.parse(readFileSync(join(out, 'resource', folder, 'index.json'), 'utf8'));
    assert.equal(json.data.map((d) => d.uuid).sort(), uuids);
    assert.is(json.totalCount, uuids.length);
    counts[folder] = uuids.length;
  }
  assert.is(
    counts.flows + counts.flowproperties + counts.unitgroups + counts.contacts + counts.sources,
    result.summary.datasets - result.catalog.byType.process.length,
  );
  assert.not.ok(existsSync(join(out, 'resource/lciamethods')), 'no empty list for a type without datasets');
});

test.run();
