import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { HEALTH_URLS, LIST_URLS } from '../site/routes.js';
import { createSiteServer } from './server.js';

export interface ServeOptions {
  site?: string;
  config?: string;
  port?: string;
  host?: string;
  cwd?: string;
}

/** `po-node serve [site]`: preview a built site until stopped; the site defaults to the config's output folder. */
export async function serveCommand(o: ServeOptions, log: (line: string) => void, stopped: Promise<void>): Promise<void> {
  const cwd = o.cwd ?? process.cwd();
  const site = o.site ? resolve(cwd, o.site) : loadConfig({ cwd, ...(o.config ? { config: o.config } : {}) }).out;
  const port = o.port === undefined ? 8080 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`--port "${o.port}" is not a port number`, { hint: 'Example: --port 8080' });
  // Requests the site cannot answer (an unreadable file) are logged here; the server keeps serving.
  const srv = createSiteServer(site, { port, host: o.host ?? '127.0.0.1', log });
  let url: string;
  try {
    ({ url } = await srv.listen());
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(`Cannot listen on ${o.host ?? '127.0.0.1'}:${port}: ${code ?? (e as Error).message}`, {
      hint: code === 'EADDRINUSE' ? 'Pick another --port.' : 'Check --host and --port.',
    });
  }
  log(`Serving ${site} at ${url}/ (list: ${url}${LIST_URLS.default}, health: ${url}${HEALTH_URLS.default}). Ctrl+C stops.`);
  await stopped;
  await srv.close();
}
