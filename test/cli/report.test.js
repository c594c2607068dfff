// Reports that stay readable at scale: grouped text, full JSON (--json, --report), GitHub annotations within its caps.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWithSchema } from '../../dist/index.js';
import { formatGithub } from '../../dist/report/github.js';
import { runCli as run } from '../helpers/cli.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';

const COPIES = 40;

/** COPIES clones of the IBU EPD under fresh UUIDs, without its dependencies: every clone misses the same datasets. */
function clones() {
  const dir = join(tmp(), 'epds');
  mkdirSync(dir);
  const ibu = REAL_EPDS.find((e) => e.file.startsWith('ibu'));
  const text = readFileSync(join(EXAMPLE_DATA, ibu.file), 'utf8');
  for (let i = 0; i < COPIES; i++) {
    const uuid = `c0c0c0c0-0000-4000-8000-${String(i).padStart(12, '0')}`;
    writeFileSync(join(dir, `${uuid}.xml`), text.replaceAll(ibu.uuid, uuid));
  }
  return dir;
}

test('text report: the same rule and message in many files is one entry with the count and the first files', async () => {
  const dir = clones();
  const json = JSON.parse((await run(['validate', dir, '--json', '--no-xsd'])).out);
  const missing = json.findings.filter((f) => f.ruleId === 'reference-missing');
  assert.ok(missing.length >= COPIES * 20, `${missing.length} missing references`);
  const r = await run(['validate', dir, '--no-xsd']);
  assert.is(r.code, 0);
  const lines = r.out.split('\n').length;
  // Ungrouped, every finding took one or two lines.
  assert.ok(lines * 10 < json.findings.length, `${lines} lines for ${json.findings.length} findings`);
  assert.match(r.out, 'In several files:');
  const m = missing[0];
  const at = r.out.indexOf(`  ${m.message}  reference-missing\n`);
  assert.ok(at > 0, 'one entry per missing dataset');
  const first = 'c0c0c0c0-0000-4000-8000-000000000000\\.xml';
  assert.match(r.out.slice(at).split('\n')[1], new RegExp(`^ +${COPIES} files: .*${first}, .*, \\.\\.\\.$`));
  // No file is listed on its own: every finding here is shared by all the clones.
  assert.not.match(r.out, /\.xml\n/);
});

test('--report <file> writes the full, schema-valid report for validate and build; never inside the site', async () => {
  const dir = clones();
  const base = tmp();
  const vFile = join(base, 'reports', 'validate.json');
  const v = await run(['validate', dir, '--no-xsd', '--report', vFile]);
  assert.is(v.code, 0);
  const vr = JSON.parse(readFileSync(vFile, 'utf8'));
  assert.equal(validateWithSchema('build-report', vr), []);
  assert.is(vr.command, 'validate');
  assert.equal(vr.findings, JSON.parse((await run(['validate', dir, '--no-xsd', '--json'])).out).findings);

  const out = join(base, 'site');
  const bFile = join(base, 'build.json');
  const b = await run(['build', dir, '--no-xsd', '--out', out, '--report', bFile]);
  assert.is(b.code, 0, b.err);
  const br = JSON.parse(readFileSync(bFile, 'utf8'));
  assert.equal(validateWithSchema('build-report', br), []);
  assert.is(br.command, 'build');
  assert.equal(br.findings, vr.findings);
  assert.match(b.err, 'In several files:');

  const inside = await run(['build', dir, '--no-xsd', '--out', out, '--report', join(out, 'report.json')]);
  assert.is(inside.code, 2);
  assert.match(inside.err, /--report .*report\.json is inside the output folder/);
});

test('--format github: the grouped log, then at most 10 annotations of each kind and a notice for the rest', async () => {
  const r = await run(['validate', clones(), '--no-xsd', '--format', 'github']);
  assert.is(r.code, 0);
  assert.match(r.out, 'In several files:');
  const ann = r.out.split('\n').filter((l) => l.startsWith('::'));
  const warnings = ann.filter((l) => l.startsWith('::warning '));
  assert.is(warnings.length, 10);
  // One annotation per distinct message before any repeats.
  assert.is(new Set(warnings.map((l) => l.slice(l.indexOf('::', 2)))).size, 10);
  const notices = ann.filter((l) => l.startsWith('::notice '));
  assert.is(notices.length, 1);
  assert.match(notices[0], /^::notice title=po-node::Annotated 10 of \d+ warnings \(GitHub shows 10 of each kind per step\)/);
});

test('formatGithub: one annotation per rule, then per message, each kind capped, nothing left out when under the cap', () => {
  const f = (severity, ruleId, message, file) => ({ ruleId, severity, file, message });
  const many = [
    ...Array.from({ length: 20 }, (_, i) => f('error', 'xsd-invalid', `Element x${i % 12}: not expected.`, `a${i}.xml`)),
    ...Array.from({ length: 5 }, (_, i) => f('error', 'eco-subtype', 'Bad subType.', `b${i}.xml`)),
    f('error', 'process-name', 'No name.', 'c.xml'),
    ...Array.from({ length: 12 }, (_, i) => f('info', 'dataset-duplicate', `Copy ${i}.`, `d${i}.xml`)),
  ];
  const out = formatGithub(many).split('\n').filter(Boolean);
  const errors = out.filter((l) => l.startsWith('::error '));
  assert.is(errors.length, 10);
  for (const rule of ['xsd-invalid', 'eco-subtype', 'process-name'])
    assert.ok(
      errors.some((l) => l.includes(`title=${rule}::`)),
      rule,
    );
  const notices = out.filter((l) => l.startsWith('::notice '));
  assert.is(notices.length, 10);
  assert.match(notices.at(-1), '::notice title=po-node::Annotated 10 of 26 errors, 9 of 12 notes');
  // 12 distinct XSD messages, more frequent than the one missing name: still every rule is annotated.
  assert.is(errors.filter((l) => l.includes('title=xsd-invalid')).length, 8);
  const few = formatGithub(many.slice(20, 23));
  assert.is(few.split('\n').filter(Boolean).length, 3);
  assert.not.match(few, 'title=po-node');
});

test.after(cleanup);
test.run();
