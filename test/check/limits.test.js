// `check` against hostile servers: every cap holds while the answer streams (measured as the peak RSS of a CLI
// child process), endless lists stop at the page and entry caps, and the time budget ends a check that would hang.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { main } from '../../dist/cli.js';
import { HttpClient } from '../../dist/check/http.js';
import { runCheck, validateWithSchema } from '../../dist/index.js';
import { endlessBody, gzipBomb, listPage, runCli, startServer } from './hostile-servers.js';

const MB = 1024 * 1024;
// A CLI child is about 100 MB before it reads anything; one 64 MB body on top stays well below this.
const RSS_BOUND_MB = 250;
const running = [];
const t = suite('check limits');
t.after.each(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function server(handler) {
  const s = await startServer(handler);
  running.push(s);
  return s;
}

/** A node whose XML list answers with `body(res)` and nothing else. */
async function listServer(body) {
  const answers = [];
  const s = await server((url, req, res) => {
    if (url.pathname === '/resource/processes' && !url.searchParams.has('format')) {
      answers.push(res);
      return body(res);
    }
    res.writeHead(404);
    res.end();
  });
  return { s, answers };
}

function bodyCapReported(report, encoded) {
  assert.equal(validateWithSchema('check-report', report), []);
  const cut = report.truncated.find((x) => x.limit === 'max-body-mb');
  assert.ok(cut, JSON.stringify(report.truncated));
  assert.match(cut.where, /^\/resource\/processes\?startIndex=0/);
  assert.match(cut.message, encoded ? /over the 64 MB cap \(--max-body-mb, counted after gzip decoding\)/ : /over the 64 MB cap/);
  const endpoints = report.items.find((i) => i.id === 'endpoints');
  const line = /\/resource\/processes\?startIndex=0&pageSize=500: body over the 64 MB cap/;
  assert.ok(
    endpoints.evidence.some((e) => line.test(e)),
    endpoints.evidence.join('\n'),
  );
}

t("the peak RSS a child reports is its own, not this test process's (getrusage carries the parent's over the exec)", async () => {
  // 300 MB held (and touched) here while the child runs: a child of about 100 MB must not report 300.
  const held = Buffer.alloc(300 * MB, 1);
  const r = await runCli(['--version']);
  assert.is(r.code, 0, r.err);
  assert.ok(r.rssMB !== undefined && r.rssMB < 200, `peak RSS ${r.rssMB?.toFixed(0)} MB with ${held.length / MB} MB held by the parent`);
});

t('a 300 MB list body without Content-Length: aborted at the 64 MB cap, peak RSS bounded', async () => {
  const { s, answers } = await listServer((res) => endlessBody(res, 300));
  const r = await runCli(['check', s.url, '--json', '--retries', '0']);
  assert.is(r.code, 1, r.signal ? `killed (${r.signal}) after ${r.ms} ms` : r.err);
  assert.ok(r.rssMB < RSS_BOUND_MB, `peak RSS ${r.rssMB.toFixed(0)} MB`);
  bodyCapReported(JSON.parse(r.out), false);
  assert.ok(answers[0].sent < 150 * MB, `the server sent ${answers[0].sent / MB} MB: the socket was not closed at the cap`);
});

t('a 1 MB gzip body inflating to 1 GB: the cap counts decoded bytes, peak RSS bounded', async () => {
  const { s } = await listServer((res) => gzipBomb(res, 1024));
  const r = await runCli(['check', s.url, '--json', '--retries', '0']);
  assert.is(r.code, 1, r.signal ? `killed (${r.signal}) after ${r.ms} ms` : r.err);
  assert.ok(r.rssMB < RSS_BOUND_MB, `peak RSS ${r.rssMB.toFixed(0)} MB`);
  bodyCapReported(JSON.parse(r.out), true);
});

t('deflate and brotli are decoded too, and capped the same way; a Content-Length over the cap is not read', async () => {
  const doc = Buffer.from('<?xml version="1.0"?><x>hello</x>');
  const bomb = Buffer.alloc(3 * MB, 0x20);
  const s = await server((url, req, res) => {
    const [enc, big] = url.pathname.slice(1).split('-');
    const body = big ? bomb : doc;
    if (enc === 'length') {
      res.writeHead(200, { 'content-length': String(5 * MB) });
      return res.write(Buffer.alloc(MB)); // never finished: the client must not wait for the rest
    }
    const coded = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[enc](body);
    res.writeHead(200, { 'content-encoding': enc, 'content-type': 'application/xml' });
    res.end(coded);
  });
  const http = new HttpClient({ timeoutS: 5, retries: 0, concurrency: 2, maxBodyBytes: 2 * MB });
  try {
    for (const enc of ['gzip', 'deflate', 'br']) {
      const ok = await http.get(`${s.url}/${enc}`);
      assert.is(ok.status, 200, ok.error);
      assert.is(Buffer.from(ok.body).toString(), doc.toString());
      const capped = await http.get(`${s.url}/${enc}-big`);
      assert.is(capped.failure, 'too-large', `${enc}: ${capped.error}`);
      assert.match(capped.error, `body over the 2 MB cap (--max-body-mb, counted after ${enc} decoding)`);
    }
    const declared = await http.get(`${s.url}/length`);
    assert.is(declared.failure, 'too-large');
    assert.match(declared.error, 'Content-Length 5242880 is over the 2 MB body cap');
  } finally {
    http.close?.();
  }
});

/** Race a check against a generous bound: a check that does not end fails the test instead of hanging it. */
async function bounded(promise, ms) {
  let timer;
  const limit = new Promise((_, ko) => (timer = setTimeout(() => ko(new Error(`check still running after ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

const QUICK = { retries: 0, timeoutS: 5, paths: /** @type {const} */ ('v1'), concurrency: 4 };

t('a list claiming 10 million EPDs with endless pages: stops at --max-entries, says so, ends in bounded time', async () => {
  const s = await server((url, req, res) => {
    if (url.pathname === '/v1/epds') return listPage(url, res, { total: 10_000_000 });
    res.writeHead(404);
    res.end();
  });
  const t0 = Date.now();
  const r = await bounded(runCheck(s.url, { ...QUICK, pageSize: 100, maxEntries: 250 }), 30_000);
  assert.ok(Date.now() - t0 < 30_000);
  assert.equal(validateWithSchema('check-report', r), []);
  assert.is(r.ready, false);
  assert.equal(
    r.truncated.map((x) => [x.limit, x.value, x.where]),
    [['max-entries', 250, '/v1/epds?format=json']],
  );
  const list = r.items.find((i) => i.id === 'list');
  const line = '/v1/epds?format=json: stopped at --max-entries 250 (the node reports 10000000); the rest was not read or checked';
  assert.ok(list.evidence.includes(`${line} (raise --max-entries to check it all)`), list.evidence.join('\n'));
  assert.is(r.epds.listed, 250);
  assert.ok(s.stats.requests < 300, `${s.stats.requests} requests`); // 3 pages, 250 EPDs, 3 probes
  assert.is(r.limits.maxEntries, 250);
});

t('a list that hands out one entry per page without end: stops at --max-pages', async () => {
  const s = await server((url, req, res) => {
    if (url.pathname === '/v1/epds') return listPage(url, res, { total: 10_000_000, perPage: 1 });
    res.writeHead(404);
    res.end();
  });
  const r = await bounded(runCheck(s.url, { ...QUICK, maxPages: 20 }), 30_000);
  assert.equal(
    r.truncated.map((x) => x.limit),
    ['max-pages'],
  );
  const list = r.items.find((i) => i.id === 'list');
  const line = '/v1/epds?format=json: stopped after --max-pages 20 pages (20 entries read, the node reports 10000000)';
  assert.ok(
    list.evidence.some((e) => e.startsWith(line)),
    list.evidence.join('\n'),
  );
  assert.is(r.epds.listed, 20);
});

t('EPDs that never answer: the time budget (--max-duration) ends the check and says what was left out', async () => {
  const s = await server((url, req, res) => {
    if (url.pathname === '/v1/epds') return listPage(url, res, { total: 40 });
    if (url.pathname.startsWith('/v1/epds/0')) return; // hangs
    res.writeHead(404);
    res.end();
  });
  const t0 = Date.now();
  const r = await bounded(runCheck(s.url, { ...QUICK, timeoutS: 30, maxDurationMin: 0.03 }), 30_000);
  const ms = Date.now() - t0;
  assert.ok(ms < 15_000, `took ${ms} ms`);
  const cut = r.truncated.find((x) => x.limit === 'max-duration');
  assert.ok(cut, JSON.stringify(r.truncated));
  assert.match(cut.message, /^the check stopped at its time budget \(--max-duration 0.03 min\): \d+ request\(s\) not made or cut/);
  assert.ok(r.items.find((i) => i.id === 'endpoints').evidence.includes(cut.message));
  assert.is(r.ready, false);
});

t('CLI: the limit flags reach the check (text report names the cap); out-of-range values exit 2', async () => {
  const s = await server((url, req, res) => {
    if (url.pathname === '/v1/epds') return listPage(url, res, { total: 10_000_000 });
    res.writeHead(404);
    res.end();
  });
  const io = fakeIo();
  const flags = ['--max-entries', '30', '--max-pages', '5', '--max-body-mb', '8', '--max-duration', '2'];
  const code = await bounded(main(['node', 'po-node', 'check', s.url, '--paths', 'v1', '--retries', '0', ...flags], io), 30_000);
  assert.is(code, 1, io.err());
  assert.match(io.out(), 'Limits reached (the check did not see everything):\n  - /v1/epds?format=json: stopped at --max-entries 30');
  for (const bad of [
    ['--max-entries', '0'],
    ['--max-pages', '0'],
    ['--max-body-mb', '0'],
    ['--max-duration', '99999'],
  ]) {
    const e = fakeIo();
    assert.is(await main(['node', 'po-node', 'check', s.url, ...bad], e), 2, bad.join(' '));
    assert.match(e.err(), `${bad[0]} `);
  }
});

function fakeIo() {
  let o = '';
  let e = '';
  return {
    stdout: /** @type {any} */ ({ isTTY: false, write: (x) => ((o += x), true) }),
    stderr: /** @type {any} */ ({ isTTY: false, write: (x) => ((e += x), true) }),
    env: { NO_COLOR: '1' },
    out: () => o,
    err: () => e,
  };
}

t.run();
