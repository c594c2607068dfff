// The file-system floor of a site, for the bench: what writing only the files each EPD has in a site costs, with
// no parsing and no lists. One thread, as the build's writer: every EPD read and hashed, its copy written, the /v1
// link, its page's folder and an 8 KB page (the bench EPDs' pages are 8 KB), the page linked into a cache folder.
// argv: <corpus> <out>; prints {"ms": ...}.
import { createHash } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const [corpus, out] = process.argv.slice(2);
rmSync(out, { recursive: true, force: true });
const t0 = performance.now();
for (const d of ['resource/processes', 'v1/epds', 'epd', 'cache']) mkdirSync(join(out, d), { recursive: true });
const page = Buffer.alloc(8192, 0x20);
const write = (path, bytes) => {
  const fd = openSync(path, 'w', 0o644);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
};
for (const name of readdirSync(join(corpus, 'processes'))) {
  const bytes = readFileSync(join(corpus, 'processes', name));
  const digest = createHash('sha256').update(bytes).digest('hex');
  const uuid = name.replace(/\.xml$/, '');
  const doc = join(out, 'resource/processes', uuid);
  write(doc, bytes);
  linkSync(doc, join(out, 'v1/epds', uuid));
  mkdirSync(join(out, 'epd', uuid));
  write(join(out, 'epd', uuid, 'index.html'), page);
  linkSync(join(out, 'epd', uuid, 'index.html'), join(out, 'cache', digest));
}
process.stdout.write(`${JSON.stringify({ ms: performance.now() - t0 })}\n`);
