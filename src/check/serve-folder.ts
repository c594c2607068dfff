import { createSiteServer } from '../serve/server.js';

/**
 * Serve a built site folder on 127.0.0.1 so `check <folder>` reads it over HTTP exactly as `po-node serve`
 * answers (the same server), on a free port. Throws InputError for a folder that is not a built site.
 */
export async function serveFolderForCheck(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const s = createSiteServer(dir, { port: 0 });
  const { url } = await s.listen();
  return { url, close: () => s.close() };
}
