// Malicious servers for `check`: bodies without end, gzip bombs, lists without end, redirects to internal addresses.
// Everything is generated on the fly while the client reads; nothing large is held in memory or written to disk.
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';

const MB = 1024 * 1024;

/** A server on `host` whose answers come from handler(url, req, res); counts connections. */
export async function startServer(handler, host = '127.0.0.1') {
  const stats = { connections: 0, requests: 0 };
  const server = createServer((req, res) => {
    stats.requests++;
    handler(new URL(req.url, 'http://x'), req, res);
  });
  server.on('connection', () => stats.connections++);
  await new Promise((ok, ko) => server.once('error', ko).listen(0, host, () => ok()));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${port}`,
    port,
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/** Write `chunk` `times` times with backpressure, stopping when the client goes away; res.sent counts bytes. */
export function stream(res, chunk, times) {
  let left = times;
  res.sent = 0;
  const more = () => {
    while (left > 0 && !res.destroyed) {
      left--;
      res.sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => (left = 0));
  more();
}

/** An XML list that never ends: `mb` MB of padding, no Content-Length. */
export function endlessBody(res, mb) {
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.write('<?xml version="1.0"?><serviceapi:dataSetList xmlns:serviceapi="http://www.ilcd-network.org/ILCD/ServiceAPI">');
  stream(res, Buffer.alloc(MB, 0x20), mb);
}

/** A gzip bomb: one gzip member of 1 MB of spaces (about 1 kB) sent `mb` times; gunzip yields `mb` MB. */
export function gzipBomb(res, mb) {
  res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
  stream(res, gzipSync(Buffer.alloc(MB, 0x20), { level: 9 }), mb);
}

/** A UUID for entry n of an endless list (never the check's unknown-UUID probe, which is n = 0). */
export const uuidOf = (n) => `00000000-0000-4000-8000-${(n + 1).toString(16).padStart(12, '0')}`;

/**
 * A v1 JSON list page as a dynamic node answers it: `total` claimed, entries from startIndex on, pageSize of
 * them (or `perPage` when given, whatever was asked), each entry new, so paging never ends before `total`.
 * @param {URL} url
 * @param {import('node:http').ServerResponse} res
 * @param {{ total: number, perPage?: number }} page
 */
export function listPage(url, res, { total, perPage }) {
  const start = Number(url.searchParams.get('startIndex') ?? 0);
  const size = perPage ?? Number(url.searchParams.get('pageSize') ?? 500);
  const length = Math.max(0, Math.min(size, total - start));
  const data = Array.from({ length }, (_, i) => ({ uuid: uuidOf(start + i), version: '01.00.000' }));
  res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(JSON.stringify({ totalCount: total, startIndex: start, pageSize: size, data }));
}

export { runCli } from '../helpers/child.js';
