// npm run bench [-- --count N] [--skip-zip] [--rss-only] [--keep] [--reuse] [--corpus-only]: synthetic corpus from
// the real example EPDs, then builds measured against baselines taken in the same run on the same files (cp -r,
// native xmllint). Prints figures and ratios and writes them as JSON (bench/results-<count>.json) for tracking. Builds
// use the default settings (no per-EPD ZIP exports) and the Node options the CLI gives a build on this machine
// (src/util/launch.ts); one full build and one 1% rebuild with --zip-export are measured besides.
//   --skip-zip  leave out the --zip-export builds (a 100k corpus would write ~40 GB of per-EPD ZIPs)
//   --rss-only  corpus, cp -r and the no-validation build only: the memory figure of a large run
//   --keep      keep the corpus (in .bench/n<count>); --reuse builds from a kept corpus instead of generating it
//   --corpus-only  generate the corpus and stop (with --keep: for measurements of your own)
// Nothing is deleted until the last figure is taken (see `discard`): the bench needs room for all it writes, about
// 22 times the corpus with the --zip-export builds (18 GB at 10,000 EPDs), 5 times without.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchFlags } from '../dist/util/launch.js';
import { makeCorpus } from '../test/helpers/corpus.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    dir: { type: 'string', default: join(ROOT, '.bench') },
    keep: { type: 'boolean', default: false },
    'skip-zip': { type: 'boolean', default: false },
    'rss-only': { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    'corpus-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  // The comment at the top of this file is its usage.
  const usage = readFileSync(fileURLToPath(import.meta.url), 'utf8').match(/^(\/\/.*\n)+/)?.[0] ?? '';
  process.stdout.write(usage.replace(/^\/\/ ?/gm, ''));
  process.exit(0);
}
const rssOnly = args['rss-only'];
const zipRun = !rssOnly && !args['skip-zip'];
const count = Number(args.count);
const tag = `${count}`;
const work = join(args.dir, `n${count}`);
const corpus = join(work, 'corpus');

function log(s) {
  process.stderr.write(`${s}\n`);
}

function time(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Bytes on disk under dir: hard links (the site links identical files) count once. */
function du(dir) {
  let n = 0;
  const seen = new Set();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p);
        if (seen.has(`${st.dev}:${st.ino}`)) continue;
        seen.add(`${st.dev}:${st.ino}`);
        n += st.size;
      }
    }
  };
  walk(dir);
  return n;
}

/**
 * The type of the file system `dir` is on, as "ext4, no journal" where ext4 runs without one (Linux; undefined where
 * it cannot be told).
 */
function fileSystemOf(dir) {
  try {
    const real = realpathSync(dir);
    let best;
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const f = line.split(' ');
      const sep = f.indexOf('-', 6);
      if (sep < 0) continue;
      const at = f[4].replace(/\\040/g, ' ');
      const inside = real === at || real.startsWith(at.endsWith('/') ? at : `${at}/`);
      if (inside && (!best || at.length >= best.at.length)) best = { at, dev: f[2], type: f[sep + 1] };
    }
    if (best?.type !== 'ext4') return best?.type;
    // The journal's thread is named after the block device (/proc/fs/jbd2/vda-8).
    const name = basename(realpathSync(`/sys/dev/block/${best.dev}`));
    const jbd2 = existsSync('/proc/fs/jbd2') ? readdirSync('/proc/fs/jbd2') : [];
    return jbd2.some((j) => j.startsWith(`${name}-`)) ? 'ext4' : 'ext4, no journal';
  } catch {
    return undefined;
  }
}

/**
 * The Node options `po-node build` runs with on this machine (src/util/launch.ts: one V8 background thread on two
 * cores): each build is measured as the CLI runs it.
 */
const buildFlags = launchFlags(['build']);
/** One build in its own process. Every build runs in `work` as its checkout, with the cache folder in it (as in CI). */
function runBuild(out, opts = {}, input = corpus) {
  opts = { cwd: work, cacheDir: join(work, 'cache'), ...opts };
  const child = [...buildFlags, join(ROOT, 'bench', 'build-child.js'), input, out, JSON.stringify(opts)];
  const r = spawnSync(process.execPath, child, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function xmllintSchema() {
  const schema = [
    join(ROOT, 'schemas', 'xsd', 'v1.2-libxml2', 'EPD_DataSet.xsd'),
    join(ROOT, '..', 'shared', 'ilcd', 'schemas', 'v1.2-libxml2', 'EPD_DataSet.xsd'),
  ].find(existsSync);
  const has = spawnSync('xmllint', ['--version']).status === 0;
  if (!schema || !has) return undefined;
  const catalog = join(schema, '..', '..', 'catalog.xml');
  const files = readdirSync(join(corpus, 'processes')).map((f) => join(corpus, 'processes', f));
  return time(() => {
    for (let i = 0; i < files.length; i += 500) {
      spawnSync('xmllint', ['--nonet', '--noout', '--schema', schema, ...files.slice(i, i + 500)], {
        env: { ...process.env, XML_CATALOG_FILES: catalog },
        stdio: 'ignore',
      });
    }
  });
}

log(
  `po-node bench: ${count} EPDs on ${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}` +
    (buildFlags.length ? `; builds run as the CLI runs them: node ${buildFlags.join(' ')}` : ''),
);
const ready = join(work, 'corpus.done');
if (args.reuse && existsSync(ready)) log(`reusing the corpus in ${corpus}`);
else {
  log('generating corpus ...');
  rmSync(work, { recursive: true, force: true });
  makeCorpus(corpus, count);
  writeFileSync(ready, `${count}\n`);
}
if (args['corpus-only']) process.exit(0);
// Nothing the bench writes is deleted before its last figure is taken: on ext4 without a journal (the bench machine's
// disk), the kernel avoids reusing an inode for minutes after its file is deleted and looks each one up again on
// every file created, so 36,000 files took 3.4 s to create on a quiet disk and 11-25 s within minutes of deleting as
// many (docs/performance.md, "The benchmark"). What a step is done with is renamed into `trash` (no inode freed) and
// deleted at the end; so are the leftovers of an earlier run (--keep).
const trash = join(work, 'trash');
let trashed = 0;
/** Move `path` (if there) into the trash, deleted when the bench ends. */
function discard(path) {
  if (!existsSync(path)) return;
  mkdirSync(trash, { recursive: true });
  renameSync(path, join(trash, `${trashed++}-${basename(path)}`));
}
for (const name of existsSync(work) ? readdirSync(work) : []) {
  if (!['corpus', 'corpus.done', 'trash'].includes(name)) discard(join(work, name));
}
const fileSystem = fileSystemOf(work);
log(
  `file system: ${fileSystem ?? 'unknown'}` +
    (fileSystem === 'ext4, no journal' ? ' (files created within minutes of many deleted are slow: nothing is deleted until the end)' : ''),
);
const bytes = du(corpus);
log(`corpus: ${count} EPDs + dependencies, ${(bytes / 1e6).toFixed(0)} MB`);

// The baseline: `cp -r` after `sync` (so writes of the corpus generation do not land on it), best of three below
// 20,000 EPDs (one copy of a large corpus takes minutes). Measured 0.6 s and 3.0 s for the same 10k corpus without.
let cpMs = Infinity;
for (let i = 0; i < (count < 20000 ? 3 : 1); i++) {
  spawnSync('sync');
  cpMs = Math.min(
    cpMs,
    time(() => execFileSync('cp', ['-r', corpus, join(work, 'copy')])),
  );
  discard(join(work, 'copy'));
}
// The file-system floor: only the files each EPD has in a site (its copy, /v1 link, page folder and page, cached page)
// written by one thread, no parsing (bench/floor-child.js); after `sync`, best of two below 20,000 EPDs. It tells
// what part of a build's time no parser can save on this disk.
let floorMs = Infinity;
for (let i = 0; i < (count < 20000 ? 2 : 1); i++) {
  spawnSync('sync');
  const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'floor-child.js'), corpus, join(work, 'floor')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`floor failed: ${r.stderr}`);
  floorMs = Math.min(floorMs, JSON.parse(r.stdout).ms);
  discard(join(work, 'floor'));
}
// The xmllint baseline before any build: measured after the builds (the last one writes the 7.6 GB --zip-export
// site), it ran while the disk still took their writes and measured 19.9 s for the 11.6 s it takes on a quiet disk.
// After `sync`, best of two below 20,000 EPDs.
let xmllintMs;
if (!rssOnly) {
  for (let i = 0; i < (count < 20000 ? 2 : 1); i++) {
    spawnSync('sync');
    const ms = xmllintSchema();
    if (ms !== undefined) xmllintMs = Math.min(xmllintMs ?? Infinity, ms);
  }
}
const tries = count < 20000 ? 2 : 1;
/**
 * A clean build into a folder of its own: one that replaced a site would delete the replaced tree's files after its
 * result (or relink them as the spare), and the next build's files would be created among them. After `sync`.
 */
const cleanBuild = (out, opts) => {
  spawnSync('sync');
  return runBuild(out, { clean: true, ...opts });
};
/** The faster of two measured builds. */
const faster = (a, b) => (b && b.ms < a.ms ? b : a);
// Validation off: level 1 only (safe XML, index fields read from each dataset's head, body scanned for references);
// no whole-document parse, no XSD, no ECO rules. Reading the index cannot be switched off: lists and health need it.
// Its own cache folder: the cache folder measured below is that of the site the other builds write.
// Best of two below 20,000 EPDs, as the baselines: this machine's speed drifts by 20-40% from one minute to the next
// (the same full build measured 46 and 63 s in two runs of one day).
let noVal, siteBytes;
for (let i = 0; i < tries; i++) {
  noVal = faster(cleanBuild(join(work, 'site-noval'), { level: 1, cacheDir: join(work, 'cache-noval') }), noVal);
  siteBytes ??= du(join(work, 'site-noval'));
  discard(join(work, 'site-noval'));
}
let full, noop, noopTries, onePct, onePctTries, fresh, zipFull, zipOnePct, zipSiteBytes;
/**
 * Change the name of 1% of the EPDs of a corpus; `from` picks which 1%. A kept corpus is changed again by every run:
 * the mark is counted up ("changed 2 "), so the names do not grow from run to run.
 */
function change1pct(dir, from) {
  const procs = readdirSync(join(dir, 'processes')).sort();
  const n = Math.max(1, Math.floor(procs.length / 100));
  for (const f of procs.slice(from * n, (from + 1) * n)) {
    const p = join(dir, 'processes', f);
    const text = readFileSync(p, 'utf8');
    const m = /(<baseName[^>]*>)(changed (\d+) |(?:changed )+)?/.exec(text);
    const count = m?.[3] ? Number(m[3]) + 1 : (m?.[2]?.length ?? 0) / 8 + 1;
    writeFileSync(p, text.replace(/(<baseName[^>]*>)(?:changed \d+ |(?:changed )+)?/, `$1changed ${count} `));
  }
}
if (!rssOnly) {
  // Full build: default validation (all levels), --clean so any cache from an earlier run is ignored. Best of two:
  // the second runs last, into a folder and cache of its own.
  full = cleanBuild(join(work, 'site'), {});
  // No-op: measured as the builds it is compared with, after `sync` (right after the full build, the kernel was still
  // writing its 1 GB: 1.22 and 1.62 s in two runs) and best of two below 20,000 EPDs.
  noopTries = [];
  for (let i = 0; i < tries; i++) {
    spawnSync('sync');
    const b = runBuild(join(work, 'site'));
    noopTries.push(b.ms);
    noop = faster(b, noop);
  }
  // 1% change: rename 1% of the EPDs, then rebuild. The site has a spare as after any rebuild (docs/performance.md,
  // "The spare tree"): an unmeasured 1% rebuild made it, freeing only the changed files' inodes.
  change1pct(corpus, 0);
  runBuild(join(work, 'site'));
  // Measured as the full build it is divided by: after `sync` (the writes of the rebuild before must not land on it),
  // best of two below 20,000 EPDs, each with another 1% changed and a spare as the first had.
  onePctTries = [];
  for (const from of [1, 4].slice(0, tries)) {
    change1pct(corpus, from);
    spawnSync('sync');
    const b = runBuild(join(work, 'site'));
    onePctTries.push(b.ms);
    onePct = faster(b, onePct);
  }
  // Fresh runner, 1% changed: a new checkout at another path (cp -r: new mtimes and ctimes), no previous site, the
  // cache folder restored as actions/cache does; then another 1% of the EPDs changed. Not timed: the copies.
  const runner = join(work, 'runner');
  mkdirSync(runner);
  execFileSync('cp', ['-r', corpus, join(runner, 'corpus')]);
  execFileSync('cp', ['-r', join(work, 'cache'), join(runner, 'cache')]);
  change1pct(join(runner, 'corpus'), 2);
  // The checkout and the cache restore are earlier CI steps: their writes must not land on the build measured.
  spawnSync('sync');
  fresh = runBuild(join(runner, 'site'), { cwd: runner, cacheDir: join(runner, 'cache') }, join(runner, 'corpus'));
  fresh.cacheMB = +(du(join(runner, 'cache')) / 1e6).toFixed(1);
  discard(runner);
  if (zipRun) {
    // --zip-export: a full build, then 1% changed (another 1%), in their own site and cache folder.
    zipFull = cleanBuild(join(work, 'site-zip'), { zipExport: true, cacheDir: join(work, 'cache-zip') });
    zipSiteBytes = du(join(work, 'site-zip'));
    change1pct(corpus, 3);
    zipOnePct = runBuild(join(work, 'site-zip'), { zipExport: true, cacheDir: join(work, 'cache-zip') });
    discard(join(work, 'site-zip'));
    discard(join(work, '.site-zip.spare'));
  }
  if (tries > 1) {
    full = faster(full, cleanBuild(join(work, 'site-2'), { cacheDir: join(work, 'cache-2') }));
    discard(join(work, 'site-2'));
    discard(join(work, 'cache-2'));
  }
}

const results = {
  machine: {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    fileSystem: fileSystem ?? null,
  },
  buildNodeFlags: buildFlags,
  count,
  rssOnly,
  corpusMB: +(bytes / 1e6).toFixed(1),
  siteMB: +(siteBytes / 1e6).toFixed(1),
  siteZipExportMB: zipSiteBytes ? +(zipSiteBytes / 1e6).toFixed(1) : null,
  ms: {
    cp: cpMs,
    siteFloor: floorMs,
    buildNoValidation: noVal.ms,
    fullBuild: full?.ms ?? null,
    noopRebuild: noop?.ms ?? null,
    rebuild1pct: onePct?.ms ?? null,
    // Each measured 1% rebuild, in order (rebuild1pct is the faster).
    noopRebuildTries: noopTries ?? null,
    rebuild1pctTries: onePctTries ?? null,
    freshRunner1pct: fresh?.ms ?? null,
    xmllintSchema: xmllintMs ?? null,
    fullBuildZipExport: zipFull?.ms ?? null,
    rebuild1pctZipExport: zipOnePct?.ms ?? null,
    // Until the process ends: the replaced tree deleted and the cache saved after the result (off the critical path).
    settled: full ? { noopRebuild: noop.settledMs, rebuild1pct: onePct.settledMs, freshRunner1pct: fresh.settledMs } : null,
  },
  peakRssMB: {
    buildNoValidation: +(noVal.maxRssKB / 1024).toFixed(0),
    fullBuild: full ? +(full.maxRssKB / 1024).toFixed(0) : null,
    noopRebuild: noop ? +(noop.maxRssKB / 1024).toFixed(0) : null,
    fullBuildZipExport: zipFull ? +(zipFull.maxRssKB / 1024).toFixed(0) : null,
  },
  ratios: {
    buildNoValidationVsCp: noVal.ms / cpMs,
    siteFloorVsCp: floorMs / cpMs,
    buildNoValidationVsSiteFloor: noVal.ms / floorMs,
    fullBuildVsCp: full ? full.ms / cpMs : null,
    fullBuildVsXmllintSchema: full && xmllintMs ? full.ms / xmllintMs : null,
    noopVsFull: full ? noop.ms / full.ms : null,
    onePctVsFull: full ? onePct.ms / full.ms : null,
    freshRunner1pctVsFull: full ? fresh.ms / full.ms : null,
    fullBuildZipExportVsXmllintSchema: zipFull && xmllintMs ? zipFull.ms / xmllintMs : null,
    onePctZipExportVsFullZipExport: zipFull ? zipOnePct.ms / zipFull.ms : null,
  },
  freshRunner: fresh ? { cache: fresh.cache, cacheMB: fresh.cacheMB } : null,
  targets: {
    fullBuildVsXmllintSchema: 1.5,
    fullBuildZipExportVsXmllintSchema: 2.5,
    buildNoValidationVsCp: 4,
    noopVsFull: 0.05,
    onePctVsFull: 0.1,
    freshRunner1pctVsFull: 0.25,
    rss100kVs10k: 1.2,
  },
  epds: noVal.epds,
};
// Memory growth: compare with the 10k run of an earlier bench, when this run is larger. The no-validation build is
// compared (the only one an --rss-only run has); the full build too when both have it. Runs before ZIP exports were
// off by default wrote the comparable figures (built with --no-zip-export) to results-10000-nozip.json.
const ref = ['results-10000.json', 'results-10000-nozip.json'].map((f) => join(ROOT, 'bench', f)).find(existsSync);
if (count > 10000 && ref) {
  const small = JSON.parse(readFileSync(ref, 'utf8'));
  results.peakRssMB.at10k = small.peakRssMB;
  results.ratios.rssNoValidationVs10k = results.peakRssMB.buildNoValidation / small.peakRssMB.buildNoValidation;
  if (full && small.peakRssMB.fullBuild) results.ratios.rssFullVs10k = results.peakRssMB.fullBuild / small.peakRssMB.fullBuild;
}
const f = (ms) => (ms == null ? 'n/a' : `${(ms / 1000).toFixed(2)} s`);
// Ratios below 1 with three decimals: the rebuilds' targets (0.05x, 0.1x, 0.25x) are met or missed in the third.
const r = (x) => (x == null ? 'n/a' : `${x.toFixed(x < 1 ? 3 : 2)}x`);
console.log(
  `corpus            ${count} EPDs, ${results.corpusMB} MB; site ${results.siteMB} MB` +
    (zipSiteBytes ? `, with --zip-export ${results.siteZipExportMB} MB` : ''),
);
console.log(`cp -r             ${f(cpMs)}`);
console.log(
  `site file floor   ${f(floorMs)}  (${r(results.ratios.siteFloorVsCp)} cp -r; each EPD's copy, /v1 link, page folder and page, cached page; one thread, no parsing)`,
);
console.log(
  `no validation     ${f(noVal.ms)}  (${r(results.ratios.buildNoValidationVsCp)} cp -r, ${r(results.ratios.buildNoValidationVsSiteFloor)} the floor; target <= 4x cp -r; --level 1)  peak RSS ${results.peakRssMB.buildNoValidation} MB`,
);
if (full) {
  console.log(`xmllint --schema  ${f(xmllintMs)}`);
  console.log(
    `full build        ${f(full.ms)}  (${r(results.ratios.fullBuildVsCp)} cp -r, ${r(results.ratios.fullBuildVsXmllintSchema)} xmllint --schema; target <= 1.5x xmllint)  peak RSS ${results.peakRssMB.fullBuild} MB`,
  );
  const settled = (b) => `; process done after ${f(b.settledMs)}`;
  console.log(
    `no-op rebuild     ${f(noop.ms)}  (${r(results.ratios.noopVsFull)} full; target <= 0.05x${noop.upToDate ? ', up to date' : ''}${noopTries.length > 1 ? `; best of ${noopTries.map(f).join(' and ')}` : ''}${settled(noop)})`,
  );
  const each = onePctTries.length > 1 ? `; best of ${onePctTries.map(f).join(' and ')}` : '';
  console.log(`1% changed        ${f(onePct.ms)}  (${r(results.ratios.onePctVsFull)} full; target <= 0.1x${each}${settled(onePct)})`);
  const c = fresh.cache;
  console.log(
    `fresh runner, 1%  ${f(fresh.ms)}  (${r(results.ratios.freshRunner1pctVsFull)} full; target <= 0.25x; ${c.read} inputs read, ` +
      `${c.byContent} recognised by content, ${c.fromBlobs} outputs from the cache; cache folder ${fresh.cacheMB} MB${settled(fresh)})`,
  );
}
if (zipFull) {
  console.log(
    `--zip-export      ${f(zipFull.ms)}  (${r(results.ratios.fullBuildZipExportVsXmllintSchema)} xmllint --schema; target <= 2.5x)  ` +
      `peak RSS ${results.peakRssMB.fullBuildZipExport} MB`,
  );
  const z = zipOnePct.cache;
  console.log(
    `  1% changed      ${f(zipOnePct.ms)}  (${r(results.ratios.onePctZipExportVsFullZipExport)} the --zip-export build; ` +
      `${z.fromSite} outputs linked from the previous site)`,
  );
}
if (results.ratios.rssNoValidationVs10k != null) {
  console.log(
    `peak RSS vs 10k   no validation ${results.peakRssMB.buildNoValidation} MB vs ${results.peakRssMB.at10k.buildNoValidation} MB (${r(results.ratios.rssNoValidationVs10k)}; target <= 1.2x)`,
  );
  if (results.ratios.rssFullVs10k != null)
    console.log(
      `                  full build ${results.peakRssMB.fullBuild} MB vs ${results.peakRssMB.at10k.fullBuild} MB (${r(results.ratios.rssFullVs10k)})`,
    );
}
console.log(JSON.stringify(results));
const outFile = join(ROOT, 'bench', `results-${tag}.json`);
writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
log(`results written to ${outFile}`);
// Now the deletions: what the steps were done with, and all but the corpus unless --keep.
rmSync(trash, { recursive: true, force: true });
if (!args.keep) rmSync(work, { recursive: true, force: true });
