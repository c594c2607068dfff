// A small static server for end-to-end tests: maps the API URLs onto the built tree the way the
// emitted nginx config does (folder -> index.xml, or index.json with format=json; extensionless -> XML).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';

const TYPES = { '.xml': 'application/xml; charset=UTF-8', '.json': 'application/json;charset=UTF-8', '.html': 'text/html; charset=utf-8' };

export async function startStaticServer(root) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const rel = normalize(decodeURIComponent(url.pathname)).replace(/^\/+|\/+$/g, '');
    if (rel.startsWith('..')) return send(res, 400);
    const format = (url.searchParams.get('format') ?? 'xml').toLowerCase();
    let file = join(root, rel);
    try {
      if ((await stat(file)).isDirectory()) file = join(file, format === 'json' ? 'index.json' : 'index.xml');
      const body = await readFile(file);
      const ext = /\.[a-z]+$/.exec(file)?.[0];
      res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/xml', 'access-control-allow-origin': '*' });
      res.end(body);
    } catch {
      send(res, 404);
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, close: () => new Promise((ok) => server.close(ok)) };
}

function send(res, status) {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(String(status));
}
