// Per-EPD ZIP exports: valid archives (unzip -t, fflate) whose every entry is an input's bytes, in ilcdlib's layout.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFile, writeAll } from '../../dist/emit/files.js';
import { withName, zipBytes, zipEntry, zipParts } from '../../dist/emit/zip-writer.js';
import { buildExample, cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';
import { filesOf } from '../helpers/zip.js';

test.after.each(cleanup);

const HAS_UNZIP = spawnSync('unzip', ['-v']).status === 0;

/** `unzip -t`: every entry inflates and matches its CRC (Info-ZIP, an implementation other than the writer's). */
function unzipTest(file) {
  if (!HAS_UNZIP) {
    if (process.env.CI) assert.unreachable('unzip is needed to test ZIP exports in CI');
    return console.warn('\n  NOTICE: no unzip: the unzip -t part is SKIPPED\n');
  }
  const r = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
  assert.is(r.status, 0, `unzip -t ${file}: ${r.stdout}${r.stderr}`);
  assert.match(r.stdout, 'No errors detected');
}

test('every ZIP export is valid and each entry is the bytes of an input of the same folder and UUID', async () => {
  const { out } = await buildExample({ zipExport: true });
  // The example folder holds ILCD exports: entry `ILCD/<folder>/<uuid>_<version>.xml` is a file of that folder and
  // UUID in one of them (input files may lack the version in their name), `ILCD/external_docs/<name>` that file.
  const inputs = Object.entries(filesOf(EXAMPLE_DATA));
  const source = (name) => {
    const m = /^(ILCD\/[a-z]+\/)([0-9a-f-]{36})_[0-9.]+\.xml$/.exec(name);
    return inputs.filter(([p]) => (m ? p.includes(`/${m[1]}${m[2]}`) : p.endsWith(`/${name}`)));
  };
  for (const e of REAL_EPDS) {
    const file = join(out, `resource/processes/${e.uuid}_files/zipexport.zip`);
    unzipTest(file);
    const entries = unzipSync(readFileSync(file));
    const names = Object.keys(entries);
    assert.equal(names, [...names].sort(), 'entries sorted by name');
    assert.ok(names.includes(`ILCD/processes/${e.uuid}_${e.version}.xml`), 'the EPD itself');
    assert.ok(names.length > 10, 'with its dependencies');
    for (const name of names) {
      assert.match(name, /^ILCD\/(processes|flows|flowproperties|unitgroups|contacts|sources|lciamethods|external_docs)\//);
      const same = source(name).some(([, b]) => Buffer.from(b).equals(entries[name]));
      assert.ok(same, `${e.uuid}: ${name} is an input's bytes`);
    }
  }
});

test('writer: one writev of the parts is the archive; stored, deflated, renamed and non-ASCII entries read back', async () => {
  const xml = Buffer.from('<a>x</a>'.repeat(500));
  const tiny = Buffer.from('x');
  const e1 = await zipEntry('ILCD/processes/a.xml', xml, true);
  const e2 = await zipEntry('ILCD/external_docs/Prüfbericht ä.pdf', tiny, false);
  const e3 = withName(await zipEntry('ILCD/flows/b.xml', tiny, true), 'ILCD/flows/c.xml');
  assert.is(e1.method, 8, 'compressible data deflated');
  assert.is(e3.method, 0, 'incompressible data stored');
  assert.is(e2.local.readUInt16LE(6) & 0x800, 0x800, 'UTF-8 name flagged');
  const parts = zipParts([e1, e2, e3]);
  assert.ok(parts.includes(e1.data) && parts.includes(e1.local), 'prepared buffers are written as they are, not copied');
  const file = join(tmp(), 'a.zip');
  createFile(file, { mode: 0o644, fixMode: false }, (fd) => writeAll(fd, parts));
  assert.ok(readFileSync(file).equals(zipBytes([e1, e2, e3])));
  unzipTest(file);
  const back = unzipSync(readFileSync(file));
  assert.equal(Object.keys(back), ['ILCD/processes/a.xml', 'ILCD/external_docs/Prüfbericht ä.pdf', 'ILCD/flows/c.xml']);
  assert.ok(Buffer.from(back['ILCD/processes/a.xml']).equals(xml));
  assert.ok(Buffer.from(back['ILCD/flows/c.xml']).equals(tiny));
  // The prepared entry is shared: writing it into a second archive at another offset leaves it unchanged.
  const again = zipBytes([e3, e1]);
  assert.ok(Buffer.from(unzipSync(again)['ILCD/processes/a.xml']).equals(xml));
  assert.ok(readFileSync(file).equals(zipBytes([e1, e2, e3])));
});

test.run();
