// Issue 4: every hostile or broken input next to a good EPD. For each case: the build does not crash, a finding
// names the file and the reason, the good EPD is still published, and nothing is written outside --out.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXAMPLE_DATA, FIXTURES, REAL_EPDS, build, cleanup, tmp, tree } from '../helpers/index.js';

const GOOD = REAL_EPDS.find((e) => e.file.startsWith('ibu'));
const HOSTILE = join(FIXTURES, 'hostile');

/** Build input = good EPD + the case's files (setup may add more); returns the result and the checked invariants. */
async function runCase(fixture, setup, extra = {}) {
  const root = tmp();
  const input = join(root, 'in');
  mkdirSync(join(input, 'good'), { recursive: true });
  cpSync(join(EXAMPLE_DATA, GOOD.file), join(input, 'good', 'epd.xml'));
  if (fixture) cpSync(join(HOSTILE, fixture), join(input, 'case'), { recursive: true });
  if (setup) setup(input, root);
  const out = join(root, 'out');
  const before = listing(input);
  const result = await build({ inputs: [input], out, now: new Date('2024-01-01T00:00:00Z'), ...extra });
  // Good EPD still published.
  assert.ok(existsSync(join(out, 'resource', 'processes', GOOD.uuid)), 'good EPD published');
  assert.is(result.summary.epds, 1);
  // Nothing written outside --out: the input folder is unchanged and the temp root holds only in/ and out/.
  assert.equal(listing(input), before);
  assert.equal(execFileSync('ls', ['-A', root], { encoding: 'utf8' }).split('\n').filter(Boolean).sort(), ['in', 'out']);
  return { result, out, input, root };
}

/** Names, sizes and modes below dir without reading contents (FIFOs would block, links are not followed). */
function listing(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${p.slice(dir.length)} ${st.size} ${st.mode} ${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

function finding(result, ruleId, fileEnd) {
  const f = result.findings.find((x) => x.ruleId === ruleId && (x.file ?? '').endsWith(fileEnd));
  assert.ok(f, `expected ${ruleId} on ${fileEnd}; got ${JSON.stringify(result.findings.map((x) => [x.ruleId, x.file]))}`);
  assert.ok(f.message.length > 20);
  return f;
}

test('malformed XML: xml-malformed with line', async () => {
  const { result } = await runCase('malformed');
  const f = finding(result, 'xml-malformed', 'case/malformed.xml');
  assert.is(f.severity, 'error');
  assert.ok(f.line > 1);
  assert.is(result.status, 'degraded');
});

test('wrong root element: ilcd-root', async () => {
  const { result } = await runCase('wrong-root');
  assert.match(finding(result, 'ilcd-root', 'case/wrong-root.xml').message, 'flowDataSetX');
});

test('not ILCD at all (XHTML): ilcd-root says it is not an ILCD dataset', async () => {
  const { result } = await runCase('not-ilcd');
  assert.match(finding(result, 'ilcd-root', 'case/index.xml').message, 'not an ILCD dataset');
});

test('missing and invalid UUID: ilcd-uuid', async () => {
  const a = await runCase('missing-uuid');
  assert.match(finding(a.result, 'ilcd-uuid', 'missing-uuid.xml').message, 'no UUID');
  const b = await runCase('invalid-uuid');
  assert.match(finding(b.result, 'ilcd-uuid', 'invalid-uuid.xml').message, 'not-a-uuid-1234');
});

test('UUIDs with path characters (../, /, %2f) are rejected and never used as paths', async () => {
  for (const c of ['uuid-dotdot', 'uuid-slash', 'uuid-percent']) {
    const { result, out, root } = await runCase(c);
    finding(result, 'ilcd-uuid', `${c}.xml`);
    assert.not.ok(existsSync(join(root, 'tmp', 'evil')));
    assert.not.ok(existsSync(join(out, 'resource', 'processes', '11111111-1111-4111-8111')));
  }
  assert.not.ok(existsSync('/tmp/evil'));
});

test('file name UUID differs from content: input-uuid-mismatch, published under the content UUID', async () => {
  const { result, out } = await runCase('filename-mismatch');
  assert.match(
    finding(result, 'input-uuid-mismatch', '33333333-3333-4333-8333-333333333333_01.00.000.xml').message,
    '22222222-2222-4222-8222-222222222222',
  );
  assert.ok(existsSync(join(out, 'resource', 'processes', '22222222-2222-4222-8222-222222222222')));
});

test('duplicate UUID in two files (same version, different content): one published, the other named', async () => {
  const { result, out } = await runCase('duplicate-files');
  const f = finding(result, 'dataset-duplicate', 'case/b.xml');
  assert.match(f.message, 'case/a.xml');
  assert.match(readFileSync(join(out, 'resource', 'processes', '44444444-4444-4444-8444-444444444444'), 'utf8'), 'Copy A');
});

test('duplicate UUID in two versions: the newer is published', async () => {
  const { result, out } = await runCase('duplicate-versions');
  assert.match(finding(result, 'dataset-duplicate', 'case/old.xml').message, 'superseded by version 02.00.000');
  assert.match(readFileSync(join(out, 'resource', 'processes', '55555555-5555-4555-8555-555555555555'), 'utf8'), 'New');
});

test('billion laughs: refused (xml-doctype), nothing expanded', async () => {
  const started = Date.now();
  const { result, out } = await runCase('billion-laughs');
  assert.match(finding(result, 'xml-doctype', 'case/lol.xml').message, 'entities');
  assert.ok(Date.now() - started < 30000);
  assert.not.ok(existsSync(join(out, 'resource', 'processes', '66666666-6666-4666-8666-666666666666')));
});

test('external entity file:///etc/passwd: refused, never read into the output', async () => {
  const { result, out } = await runCase('external-entity');
  finding(result, 'xml-doctype', 'case/xxe.xml');
  const grep = spawnSync('grep', ['-rl', 'root:x:0:0', out], { encoding: 'utf8' });
  assert.is(grep.status, 1, grep.stdout); // 1 = no match
  assert.not.ok(existsSync(join(out, 'resource', 'processes', '77777777-7777-4777-8777-777777777777')));
});

test('empty (white space) and 0-byte files: xml-empty', async () => {
  const a = await runCase('empty');
  assert.match(finding(a.result, 'xml-empty', 'case/empty.xml').message, 'white space');
  const b = await runCase('zero-byte');
  assert.match(finding(b.result, 'xml-empty', 'case/zero.xml').message, '0 bytes');
});

test('file over the size limit (sparse 200 MB, --max-file-size 100): input-too-large, never read', async () => {
  const { result } = await runCase(
    null,
    (input) => {
      const p = join(input, 'huge.xml');
      const fd = openSync(p, 'w');
      writeSync(fd, '<a>', 200 * 1024 * 1024 - 4); // sparse: only the last block is allocated
      closeSync(fd);
    },
    { maxFileSizeMB: 100 },
  );
  const f = finding(result, 'input-too-large', 'huge.xml');
  assert.match(f.message, '200.0 MB, over the 100.0 MB limit');
});

test('UTF-16 file: xml-encoding', async () => {
  const { result } = await runCase('utf16');
  assert.match(finding(result, 'xml-encoding', 'case/utf16.xml').message, 'UTF-16');
});

test('non-XML file in the folder: skipped with a notice', async () => {
  const { result } = await runCase('not-xml');
  assert.is(finding(result, 'input-not-xml', 'case/notes.txt').severity, 'info');
  assert.is(result.summary.skipped, 1);
});

test('symlink pointing outside the input: not followed', async () => {
  const { result, out } = await runCase(null, (input) => {
    symlinkSync('/etc/passwd', join(input, 'passwd.xml'));
    symlinkSync(join(EXAMPLE_DATA, GOOD.file), join(input, 'outside-epd.xml'));
  });
  assert.match(finding(result, 'input-symlink', 'passwd.xml').message, 'outside the input folder');
  finding(result, 'input-symlink', 'outside-epd.xml');
  assert.is(Object.keys(tree(out)).filter((p) => p.includes('passwd')).length, 0);
});

test('unreadable file: input-unreadable (chmod 000, or a FIFO when running as root)', async () => {
  const asRoot = process.getuid?.() === 0;
  const { result } = await runCase(null, (input) => {
    const p = join(input, 'locked.xml');
    if (asRoot) {
      // root reads chmod-000 files, so use a FIFO: reading it would block forever.
      execFileSync('mkfifo', [p]);
    } else {
      cpSync(join(EXAMPLE_DATA, GOOD.file), p);
      chmodSync(p, 0o000);
    }
  });
  const f = finding(result, 'input-unreadable', 'locked.xml');
  assert.is(f.severity, 'error');
  assert.is(result.status, 'degraded');
  if (!asRoot) chmodSync(join(result.config.inputs[0], 'locked.xml'), 0o644);
});

test.after(async () => {
  await cleanup();
  rmSync('/tmp/evil', { force: true });
});
test.run();
