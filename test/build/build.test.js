// Whole builds: rejected inputs, duplicates, determinism, --strict, and the output folder's safety.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutputError } from '../../dist/index.js';
import { EXAMPLE_CONFIG, EXAMPLE_DATA, REAL_EPDS, build, cleanup, sha256, tmp, tree, wrongModes } from '../helpers/index.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const IBU = REAL_EPDS[0];
const ibuXml = () => readFileSync(join(EXAMPLE_DATA, IBU.file), 'utf8');

/** A folder with two good EPDs and a set of bad files next to them. */
function mixedFolder() {
  const dir = join(tmp(), 'in');
  mkdirSync(dir, { recursive: true });
  for (const epd of REAL_EPDS.slice(0, 2)) cpSync(join(EXAMPLE_DATA, epd.file), join(dir, epd.file.split('/').pop()));
  writeFileSync(join(dir, 'malformed.xml'), '<processDataSet>\n<unclosed>\n</processDataSet>');
  writeFileSync(join(dir, 'doctype.xml'), '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>');
  writeFileSync(join(dir, 'bad-uuid.xml'), ibuXml().replace(`${IBU.uuid}</common:UUID>`, '../../escape</common:UUID>'));
  writeFileSync(join(dir, 'empty.xml'), '');
  writeFileSync(join(dir, 'notes.txt'), 'not a dataset');
  writeFileSync(join(dir, 'html.xml'), '<html><body/></html>');
  return dir;
}

test('bad files are reported by path and reason; the good EPDs are still published', async () => {
  const dir = mixedFolder();
  const out = join(dirname(dir), 'site');
  const r = await build({ inputs: [dir], out, now: NOW, baseUrl: 'https://epd.example.org' });
  assert.ok(r.written);
  assert.is(r.status, 'degraded');
  assert.is(r.summary.epds, 2);
  assert.is(r.summary.rejected, 5);
  const byFile = (name) => r.findings.filter((f) => f.file?.endsWith(name)).map((f) => f.ruleId);
  assert.equal(byFile('malformed.xml'), ['xml-malformed']);
  assert.equal(byFile('doctype.xml'), ['xml-doctype']);
  assert.equal(byFile('bad-uuid.xml'), ['ilcd-uuid']);
  assert.equal(byFile('empty.xml'), ['xml-empty']);
  assert.equal(byFile('html.xml'), ['ilcd-root']);
  assert.equal(byFile('notes.txt'), ['input-not-xml']);
  const malformed = r.findings.find((f) => f.ruleId === 'xml-malformed');
  assert.is(malformed.line, 3);
  assert.ok(malformed.file.endsWith('in/malformed.xml'));
  // Nothing escaped the output folder, and the health document tells the truth.
  assert.not.ok(existsSync(join(dirname(dir), 'escape')));
  assert.equal(readdirSync(dirname(dir)).sort(), ['in', 'site']);
  const health = JSON.parse(readFileSync(join(out, 'healthz/index.json'), 'utf8'));
  assert.is(health.status, 'degraded');
  assert.is(health.inputs.rejected, 5);
  assert.is(health.epds.listed, 2);
});

test('--strict writes nothing when a dataset is rejected and leaves the old site alone', async () => {
  const dir = mixedFolder();
  const out = join(dirname(dir), 'site');
  await build({ inputs: [join(dir, IBU.file.split('/').pop())], out, now: NOW });
  const before = tree(out);
  const r = await build({ inputs: [dir], out, now: NOW, strict: true });
  assert.not.ok(r.ok);
  assert.not.ok(r.written);
  assert.is(r.status, 'not-written');
  assert.equal(tree(out), before);
});

test('duplicate UUIDs: the newest dataSetVersion wins and a warning names both files', async () => {
  const dir = join(tmp(), 'in');
  mkdirSync(dir);
  const older = ibuXml().replace('<common:dataSetVersion>00.01.000<', '<common:dataSetVersion>00.00.009<');
  writeFileSync(join(dir, 'a-old.xml'), older);
  cpSync(join(EXAMPLE_DATA, IBU.file), join(dir, 'b-new.xml'));
  const r = await build({ inputs: [dir], out: join(dirname(dir), 'site'), now: NOW });
  assert.is(r.summary.epds, 1);
  assert.is(r.summary.superseded, 1);
  const w = r.findings.find((f) => f.ruleId === 'dataset-duplicate');
  assert.is(w.severity, 'warning');
  assert.ok(w.file.endsWith('a-old.xml'));
  assert.match(w.message, 'b-new.xml');
  assert.match(w.message, '00.00.009');
  assert.is(sha256(readFileSync(join(dirname(dir), 'site/resource/processes', IBU.uuid))), sha256(readFileSync(join(dir, 'b-new.xml'))));
});

test('same input gives a byte-identical tree (SOURCE_DATE_EPOCH convention)', async () => {
  const base = tmp();
  process.env.SOURCE_DATE_EPOCH = '1767323045';
  try {
    await build({ config: EXAMPLE_CONFIG, out: join(base, 'one') });
    await build({ config: EXAMPLE_CONFIG, out: join(base, 'two') });
  } finally {
    delete process.env.SOURCE_DATE_EPOCH;
  }
  const one = tree(join(base, 'one'));
  assert.ok(Object.keys(one).length > 150);
  assert.equal(tree(join(base, 'two')), one);
  assert.is(JSON.parse(readFileSync(join(base, 'one/healthz/index.json'), 'utf8')).builtAt, '2026-01-02T03:04:05.000Z');
});

test('the site is readable by any web server user: folders 0755, files 0644, whatever the umask and input modes', async () => {
  // 077: every created mode must be set again; 022: the created modes are right and only the inputs' own modes could
  // come along with a copy; 002: group-writable umask.
  for (const mask of [0o077, 0o022, 0o002]) {
    const dir = tmp();
    cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
    // A private input (0600) and an executable one (0755) are copied into the site; their modes must not come along.
    chmodSync(join(dir, 'data', IBU.file), 0o600);
    chmodSync(join(dir, 'data', REAL_EPDS[1].file), 0o755);
    const out = join(dir, 'site');
    const umask = process.umask(mask);
    try {
      await build({ inputs: [join(dir, 'data')], out, cwd: dir, now: NOW, hosts: ['apache'] });
      // The rebuild links unchanged files from the previous site: they keep the right mode too.
      await build({ inputs: [join(dir, 'data')], out, cwd: dir, now: NOW, hosts: ['apache'] });
    } finally {
      process.umask(umask);
    }
    assert.equal(wrongModes(out), [], `umask ${mask.toString(8)}`);
    assert.equal(wrongModes(`${out}-deploy`), [], `umask ${mask.toString(8)}`);
  }
});

test('an input that changes after it was read fails health: the writer hashes what it copies, never trusts the key', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const input = join(dir, 'data', IBU.file);
  const r = await build({
    inputs: [join(dir, 'data')],
    out: join(dir, 'site'),
    cwd: dir,
    now: NOW,
    // Read, indexed and hashed; now changed on disk (same size) before the site is written.
    onProgress: (e) =>
      e.phase === 'write' && writeFileSync(input, readFileSync(input, 'utf8').replace('2-layer parquet', '2-layer PARQUET')),
  });
  assert.is(r.health.status, 'fail');
  const failed = r.health.checks.filter((c) => !c.ok);
  assert.equal(
    failed.map((c) => c.id),
    ['resource/processes/<uuid>', 'v1/epds/<uuid>'],
  );
  assert.match(failed[0].detail, IBU.uuid);
});

test('rebuilding replaces the site atomically and leaves no temporary folders (only the spare)', async () => {
  const base = tmp();
  const out = join(base, 'site');
  await build({ config: EXAMPLE_CONFIG, out, now: NOW });
  writeFileSync(join(out, 'stale.txt'), 'from an older build');
  const r = await build({ config: EXAMPLE_CONFIG, out, now: NOW });
  assert.not.ok(existsSync(join(out, 'stale.txt')));
  // The replaced site is made the spare after the result is returned (off the critical path): test/build/spare.test.js.
  await r.settled;
  assert.equal(readdirSync(base).sort(), ['.site.spare', 'site']);
});

test('a non-empty folder po-node did not create is refused unless --clean', async () => {
  const base = tmp();
  const out = join(base, 'mine');
  mkdirSync(out);
  writeFileSync(join(out, 'precious.txt'), 'keep me');
  try {
    await build({ config: EXAMPLE_CONFIG, out, now: NOW });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.instance(e, OutputError);
    assert.match(e.message, 'not made by po-node');
    assert.match(e.hint, '--clean');
  }
  assert.ok(existsSync(join(out, 'precious.txt')));
  await build({ config: EXAMPLE_CONFIG, out, now: NOW, clean: true });
  assert.not.ok(existsSync(join(out, 'precious.txt')));
});

test('an output folder that contains the inputs is refused', async () => {
  const base = tmp();
  const input = join(base, 'data');
  cpSync(join(EXAMPLE_DATA, 'ibu_with_dependencies'), input, { recursive: true });
  try {
    await build({ inputs: [input], out: base, now: NOW, clean: true });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.instance(e, OutputError);
    assert.match(e.message, 'contains the input');
  }
  assert.ok(existsSync(join(input, 'ILCD')));
});

test('nothing publishable: status fail and ok=false', async () => {
  const dir = join(tmp(), 'in');
  mkdirSync(dir);
  writeFileSync(join(dir, 'x.xml'), '<a/>');
  const r = await build({ inputs: [dir], out: join(dirname(dir), 'site'), now: NOW });
  assert.ok(r.written);
  assert.is(r.status, 'fail');
  assert.not.ok(r.ok);
  assert.match(r.health.reasons.join(' '), 'no EPD could be published');
});

test.after(cleanup);
test.run();
