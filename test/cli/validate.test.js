import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';
import { zipExports } from '../helpers/zip.js';

const run = runCli;

const IBU = REAL_EPDS.find((e) => e.file.startsWith('ibu'));

/** A broken copy of the IBU EPD: unknown subType (rule error) and a misplaced element (XSD error). */
function brokenFolder() {
  const dir = join(tmp(), 'data');
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(join(EXAMPLE_DATA, IBU.file), 'utf8')
    .replace(/(<epd:subType[^>]*>)[^<]*</, '$1specific<')
    .replace(/<common:registrationNumber>[^<]*<\/common:registrationNumber>/, '');
  writeFileSync(join(dir, 'broken.xml'), text);
  return dir;
}

test('validate on the example data: exit 0, clean summary, nothing written', async () => {
  const before = readdirSync(process.cwd()).sort();
  const r = await run(['validate', EXAMPLE_DATA]);
  assert.is(r.code, 0);
  assert.match(r.out, '5 EPDs');
  assert.match(r.out, '0 errors');
  assert.match(r.out, 'No errors.');
  assert.not.match(r.out, '\x1b[');
  assert.equal(readdirSync(process.cwd()).sort(), before);
});

test('a broken EPD: exit 1, findings grouped by file with line, xpath and rule id', async () => {
  const dir = brokenFolder();
  const r = await run(['validate', dir]);
  assert.is(r.code, 1);
  assert.match(r.out, 'broken.xml\n');
  assert.match(r.out, /\n {2}73:1 +error +epd:subType "specific" is not one of/);
  assert.match(r.out, 'at /processDataSet/modellingAndValidation/LCIMethodAndAllocation/common:other/epd:subType');
  assert.match(r.out, 'xsd-invalid');
  assert.match(r.out, 'eco-registration-number');
  assert.not.ok(existsSync(join(dir, '..', 'site')));
});

test('--json: machine-readable report with the same findings', async () => {
  const r = await run(['validate', brokenFolder(), '--json']);
  assert.is(r.code, 1);
  const j = JSON.parse(r.out);
  assert.is(j.ok, false);
  const sub = j.findings.find((f) => f.ruleId === 'eco-subtype');
  assert.is(sub.severity, 'error');
  assert.is(sub.line, 73);
  assert.is(sub.col, 1);
  assert.match(sub.file, 'broken.xml');
});

test('--format github: workflow annotations with file, line and title', async () => {
  const r = await run(['validate', brokenFolder(), '--format', 'github']);
  assert.is(r.code, 1);
  const line = r.out.split('\n').find((l) => l.includes('title=eco-subtype'));
  assert.match(line, /^::error file=[^,]*broken\.xml,line=73,col=1,title=eco-subtype::epd:subType "specific"/);
});

test('colour only on a TTY and never with NO_COLOR', async () => {
  const dir = brokenFolder();
  assert.match((await run(['validate', dir], {}, true)).out, '\x1b[31m');
  assert.not.match((await run(['validate', dir], { NO_COLOR: '' }, true)).out, '\x1b[');
});

test('levels: --no-rules, --no-xsd and --level 2 switch checks off', async () => {
  const dir = brokenFolder();
  const noRules = JSON.parse((await run(['validate', dir, '--json', '--no-rules'])).out);
  assert.not.ok(noRules.findings.some((f) => f.ruleId.startsWith('eco-')));
  assert.ok(noRules.findings.some((f) => f.ruleId === 'xsd-invalid'));
  const noXsd = JSON.parse((await run(['validate', dir, '--json', '--no-xsd'])).out);
  assert.not.ok(noXsd.findings.some((f) => f.ruleId === 'xsd-invalid'));
  assert.ok(noXsd.findings.some((f) => f.ruleId === 'eco-subtype'));
  const l2 = await run(['validate', dir, '--json', '--level', '2']);
  assert.is(l2.code, 0);
  // Level 2 alone: no XSD or ECO rule findings (references and configuration are reported as by build).
  assert.equal(
    JSON.parse(l2.out).findings.filter((f) => f.ruleId === 'xsd-invalid' || f.ruleId.startsWith('eco-')),
    [],
  );
});

test('config "validation" settings are honoured and flags override them', async () => {
  const dir = brokenFolder();
  const cfg = join(dir, '..', 'po-node.config.json');
  writeFileSync(cfg, JSON.stringify({ inputs: ['data'], validation: { xsd: false, disabledRules: ['eco-subtype'] } }));
  const j = JSON.parse((await run(['validate', '--config', cfg, '--json'])).out);
  assert.not.ok(j.findings.some((f) => f.ruleId === 'xsd-invalid' || f.ruleId === 'eco-subtype'));
  assert.ok(j.findings.some((f) => f.ruleId === 'eco-registration-number'));
});

test('usage errors exit 2: unknown format, bad level, missing input', async () => {
  assert.is((await run(['validate', EXAMPLE_DATA, '--format', 'xml'])).code, 2);
  assert.is((await run(['validate', EXAMPLE_DATA, '--level', '9'])).code, 2);
  assert.is((await run(['validate', join(tmp(), 'nope')])).code, 2);
  assert.is((await run(['validate', EXAMPLE_DATA, '--max-file-size', 'x'])).code, 2);
});

test('build --strict refuses to write with a broken EPD; without it the rest is published and health is degraded', async () => {
  const dir = brokenFolder();
  cpSync(join(EXAMPLE_DATA, REAL_EPDS[1].file), join(dir, 'good.xml'));
  const out = join(dir, '..', 'site');
  const strict = await run(['build', dir, '--out', out, '--strict', '--json']);
  assert.is(strict.code, 1);
  assert.not.ok(existsSync(out));
  const loose = await run(['build', dir, '--out', out, '--json']);
  const j = JSON.parse(loose.out);
  assert.is(j.status, 'degraded');
  assert.is(j.summary.rejected, 1);
  assert.is(j.summary.epds, 1);
});

/** The five sample exports (one real EPD each, with dependencies), as folders. */
const EXPORTS = readdirSync(EXAMPLE_DATA).filter((n) => REAL_EPDS.some((e) => e.file.startsWith(`${n}/`)));

/** Findings of `validate --json` and `build --json` on the same inputs and flags. */
async function bothReports(inputs, flags = []) {
  const v = await run(['validate', ...inputs, '--json', ...flags]);
  const b = await run(['build', ...inputs, '--out', join(tmp(), 'site'), '--json', ...flags]);
  return { v: JSON.parse(v.out), b: JSON.parse(b.out), codes: [v.code, b.code] };
}

test('validate is build without the write: the same findings on each sample export, as a folder and as a ZIP', async () => {
  assert.is(EXPORTS.length, 5);
  const zips = tmp();
  zipExports(EXAMPLE_DATA, zips);
  for (const name of EXPORTS) {
    for (const input of [join(EXAMPLE_DATA, name), join(zips, `${name}.zip`)]) {
      const { v, b } = await bothReports([input]);
      assert.ok(b.summary.datasets > 10, `${input}: ${b.summary.datasets} datasets`);
      assert.ok(
        v.findings.some((f) => f.ruleId === 'reference-missing'),
        `${input}: the reference check ran`,
      );
      assert.equal(v.findings, b.findings, input);
      assert.equal(v.summary, b.summary, input);
    }
  }
  // All five ZIPs at once, with the flags that change what the read stage reports.
  const all = EXPORTS.map((n) => join(zips, `${n}.zip`));
  const { v, b } = await bothReports(all, ['--require-dependencies', '--base-url', 'https://epd.example.org/node']);
  assert.is(v.summary.epds + v.summary.rejected > 0, true);
  assert.ok(v.findings.some((f) => f.ruleId === 'reference-missing' && f.severity === 'error'));
  assert.not.ok(v.findings.some((f) => f.ruleId === 'config-base-url'));
  assert.equal(v.findings, b.findings);
});

test.after(cleanup);
test.run();
