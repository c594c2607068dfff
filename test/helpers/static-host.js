// A minimal static host for tests: serves a built site with the rewrites docs/dependencies.md asks
// of nginx/Apache (sub-resources of /resource/<type>/<uuid> live in <uuid>_files/).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';

const UUID = '[0-9a-fA-F-]{36}';
export const REWRITES = [
  [new RegExp(`^/resource/processes/(${UUID})/zipexport$`), '/resource/processes/$1_files/zipexport.zip'],
  [new RegExp(`^/resource/processes/(${UUID})/epd$`), '/resource/processes/$1_files/epd.pdf'],
  [new RegExp(`^/resource/sources/(${UUID})/([^/]+)$`), '/resource/sources/$1_files/$2'],
];

export function rewrite(path) {
  for (const [re, to] of REWRITES) if (re.test(path)) return path.replace(re, to);
  return path;
}

/** Start on a free port; resolves to { url, close }. Query strings are ignored, like a static host. */
export async function serveSite(dir) {
  const server = createServer(async (req, res) => {
    const raw = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let p = rewrite(raw);
    if (p.endsWith('/')) p += 'index.xml';
    const file = normalize(join(dir, p));
    if (!file.startsWith(dir)) return void res.writeHead(403).end();
    try {
      let f = file;
      if ((await stat(f)).isDirectory()) f = join(f, 'index.xml');
      const body = await readFile(f);
      res.writeHead(200, { 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}
