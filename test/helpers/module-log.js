// Loaded with `node --import` into a CLI child: appends the URL of every module file loaded to $PO_NODE_MODULE_LOG.
// The load hook runs on the loader thread; the main thread only registers it.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function load(url, context, next) {
  if (process.env.PO_NODE_MODULE_LOG && url.startsWith('file:')) appendFileSync(process.env.PO_NODE_MODULE_LOG, `${url}\n`);
  return next(url, context);
}
