// The whole EPD lists of an incremental build take the entries of unchanged EPDs from the last build's files
// (src/emit/list-entries.ts); whatever is not as that build wrote it is rendered again.
import { cpSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp, tree } from '../helpers/index.js';

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');
const LISTS = ['resource/processes/index.xml', 'resource/processes/index.json', 'v1/epds/index.json'];
// Pages of 100 entries: the first holds all five example EPDs.
const PAGES = ['resource/processes/pages/100/0.xml', 'resource/processes/pages/100/0.json'];

async function setup() {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const site = join(dir, 'site');
  // Reproducible builds set every file's mtime to the build time, whole seconds: a test can put it back exactly.
  const run = async (extra = {}) => {
    const sde = process.env.SOURCE_DATE_EPOCH;
    process.env.SOURCE_DATE_EPOCH = String(now.getTime() / 1000);
    try {
      const r = await build({ inputs: [join(dir, 'data')], out: site, cwd: dir, now, ...extra });
      await r.settled;
      return r;
    } finally {
      if (sde === undefined) delete process.env.SOURCE_DATE_EPOCH;
      else process.env.SOURCE_DATE_EPOCH = sde;
    }
  };
  return { dir, site, run };
}

/** The same inputs built clean into a fresh folder: the tree an incremental build must equal. */
async function cleanTree(dir) {
  const fresh = join(tmp(), 'site');
  await (
    await build({ inputs: [join(dir, 'data')], out: fresh, cwd: dir, now, clean: true })
  ).settled;
  return tree(fresh);
}

function rename(dir, e, name) {
  const f = join(dir, 'data', e.file);
  writeFileSync(f, readFileSync(f, 'utf8').replace(/(<baseName[^>]*>)/, `$1${name} `));
}

/** Change bytes of a file in place, same length, and put its times back: to the build manifest it is as written. */
function patchInPlace(file, from, to) {
  const st = statSync(file);
  const text = readFileSync(file, 'latin1');
  assert.ok(text.includes(from), `${file} holds ${from}`);
  writeFileSync(file, text.replaceAll(from, to), 'latin1');
  utimesSync(file, st.atime, st.mtime);
  const now = statSync(file);
  assert.is(now.ino, st.ino);
  assert.is(now.mtimeMs, st.mtimeMs, 'mtime put back exactly');
}

test("an unchanged EPD's entries come from the last build's lists; the changed EPD's are rendered", async () => {
  const { dir, site, run } = await setup();
  const [e0, e1] = REAL_EPDS;
  await run();
  // Marks the last build's entries of e0 (its UUID appears only in its own entries): a rendered entry shows it unmarked.
  const mark = e0.uuid.replace('2eb43850', '2eb4385X');
  for (const l of LISTS) patchInPlace(join(site, l), e0.uuid, mark);
  rename(dir, e1, 'Changed');
  await run();
  // The pages holding e1 are written again; e0's entry in them comes from the whole list too.
  for (const l of [...LISTS, ...PAGES]) {
    const text = readFileSync(join(site, l), 'utf8');
    assert.ok(text.includes(mark), `${l}: e0's entry taken from the last build's file`);
    assert.ok(text.includes('Changed '), `${l}: e1's entry rendered anew`);
  }
  // A clean build takes nothing from the last build: the marks are gone.
  rename(dir, e1, 'Again');
  await run({ clean: true });
  assert.equal(tree(site), await cleanTree(dir), 'a clean build renders everything');
});

test('a list file that is not as the last build wrote it (replaced, same size) is not used: entries rendered', async () => {
  const { dir, site, run } = await setup();
  const [, e1] = REAL_EPDS;
  await run();
  for (const l of LISTS) {
    const file = join(site, l);
    const size = statSync(file).size;
    const other = `${file}.other`;
    writeFileSync(other, 'x'.repeat(size));
    renameSync(other, file);
  }
  rename(dir, e1, 'Changed');
  await run();
  assert.equal(tree(site), await cleanTree(dir));
});

test("a changed declared unit (the EPD's flow renamed, the EPD unchanged) renders its entries anew", async () => {
  const { dir, site, run } = await setup();
  const [e0] = REAL_EPDS;
  await run();
  const list = JSON.parse(readFileSync(join(site, 'resource/processes/index.json'), 'utf8'));
  const flow = list.data.find((d) => d.uuid === e0.uuid).referenceFlows[0];
  const flows = join(dir, 'data', e0.file.split('/processes/')[0], 'flows');
  const file = readdirSync(flows).find((n) => n.startsWith(flow.uuid));
  assert.ok(file, 'the reference flow is in the input');
  const p = join(flows, file);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/(<baseName[^>]*>)/, '$1Renamed flow '));
  await run();
  const after = JSON.parse(readFileSync(join(site, 'resource/processes/index.json'), 'utf8'));
  assert.match(after.data.find((d) => d.uuid === e0.uuid).referenceFlows[0].name, /^Renamed flow /);
  assert.equal(tree(site), await cleanTree(dir));
});

test('lists kept whole (no EPD changed) keep their entries for the build after', async () => {
  const { dir, site, run } = await setup();
  const [e0, e1] = REAL_EPDS;
  await run();
  // A change outside the EPDs' entries (a contact dataset): the cache is written again, the lists are kept as they
  // are (same key), and so are their entries' places.
  const contacts = join(dir, 'data', e0.file.split('/processes/')[0], 'contacts');
  const contact = join(contacts, readdirSync(contacts)[0]);
  writeFileSync(contact, `${readFileSync(contact, 'utf8')}\n<!-- changed -->\n`);
  const kept = await run();
  assert.ok(kept.cache.fromSite > 0 && kept.cache.read === 1, 'one input read again, the rest kept');
  const mark = e0.uuid.replace('2eb43850', '2eb4385X');
  for (const l of LISTS) patchInPlace(join(site, l), e0.uuid, mark);
  rename(dir, e1, 'Changed');
  await run();
  for (const l of LISTS)
    assert.ok(readFileSync(join(site, l), 'utf8').includes(mark), `${l}: entries kept across a build that kept the list`);
});

test.run();
