// Test servers for `check`: a front server on 127.0.0.1 that forwards to the folder server of
// `check <folder>` and lets a test break answers (status, headers, body, or never answering).
import { createServer } from 'node:http';
import { serveFolderForCheck } from '../../dist/check/serve-folder.js';

/**
 * hook(url, req) may return: undefined (forward), 'hang' (never answer), or
 * { status?, headers?, body? } to replace parts of the forwarded answer.
 * @param {(url: URL, req: import('node:http').IncomingMessage) => any} [hook]
 */
export async function startFront(hook = () => undefined) {
  let backend;
  const stats = { requests: 0, inFlight: 0, maxInFlight: 0, paths: [] };
  const forward = async (req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    res.on('close', () => stats.inFlight--);
    const url = new URL(req.url, 'http://127.0.0.1');
    stats.paths.push(url.pathname + url.search);
    const h = hook(url, req);
    if (h === 'hang') return; // the socket stays open until close()
    // A little latency so concurrent requests overlap and in-flight counts mean something.
    await new Promise((ok) => setTimeout(ok, 5));
    // Forward as a static host does: the query string is ignored except format (the hosts' rewrite rule),
    // so these tests do not depend on whether the folder server pages.
    const format = url.searchParams.get('format');
    const upstream = await fetch(backend.url + url.pathname + (format ? `?format=${format}` : ''), {
      headers: { origin: req.headers.origin ?? '' },
    });
    const headers = {};
    upstream.headers.forEach((v, k) => (headers[k] = v));
    let body = Buffer.from(await upstream.arrayBuffer());
    let status = upstream.status;
    if (h) {
      if (h.status) status = h.status;
      Object.assign(headers, h.headers ?? {});
      if (h.body !== undefined) body = Buffer.from(h.body);
    }
    delete headers['content-length'];
    delete headers['content-encoding'];
    delete headers['transfer-encoding'];
    res.writeHead(status, headers);
    res.end(body);
  };
  // A failed upstream fetch drops the connection (the check sees it) instead of an unhandled rejection.
  const server = createServer((req, res) => {
    forward(req, res).catch(() => res.destroy());
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return {
    url,
    stats,
    /** Serve this built folder behind the front server. */
    async serve(dir) {
      backend = await serveFolderForCheck(dir);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      await backend?.close();
    },
  };
}
