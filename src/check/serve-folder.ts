import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import { isInside } from '../read/inputs.js';

/**
 * Serve a built site folder on 127.0.0.1 so `check <folder>` can read it over HTTP like the portal.
 *
 * TEMPORARY: a minimal stand-in for the local server of `po-node serve` (issue 5), which was not on this
 * branch when this was written. At merge, replace this file's body with (callers only use this function):
 *   import { createSiteServer } from '../serve/server.js';
 *   const s = createSiteServer(dir, { port: 0 });   // throws InputError for a folder that is no built site
 *   const { url } = await s.listen();
 *   return { url, close: () => s.close() };
 * Mapping here (as the emitted host configurations do): a folder answers index.xml, or index.json with
 * format=json (or when it has no index.xml); extensionless files are application/xml; no paging.
 */
export async function serveFolderForCheck(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const root = resolve(dir);
  if (!(await isFile(resolve(root, 'resource/processes/index.xml'))) && !(await isFile(resolve(root, 'v1/epds/index.json')))) {
    throw new InputError(`${dir} is not a built po-node site (no resource/processes/index.xml or v1/epds/index.json)`, { hint: 'pass the output folder of po-node build, or the node base URL (https://...)' });
  }
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const send = (status: number, type: string, body: Uint8Array | string) => {
        res.writeHead(status, { 'content-type': type, 'access-control-allow-origin': '*', 'cache-control': 'no-cache' });
        res.end(req.method === 'HEAD' ? undefined : body);
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed');
      let path: string;
      try {
        path = resolve(root, `.${decodeURIComponent(url.pathname)}`);
      } catch {
        return send(400, 'text/plain', 'bad request');
      }
      if (path !== root && !isInside(root, path)) return send(400, 'text/plain', 'bad request');
      const json = url.searchParams.get('format')?.toLowerCase() === 'json';
      const candidates = (await isDir(path)) ? (json ? ['index.json', 'index.xml'] : ['index.xml', 'index.json']).map((f) => `${path}${sep}${f}`) : [path];
      for (const file of candidates) {
        try {
          const body = await readFile(file);
          const type = file.endsWith('.json') ? 'application/json;charset=UTF-8' : file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/xml; charset=UTF-8';
          return send(200, type, body);
        } catch {
          /* try the next candidate */
        }
      }
      send(404, 'text/plain', 'not found');
    })();
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}
