// Synthetic corpora from the real example EPDs, for the benchmark and for tests that need a build with many files.
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './http.js';
import { EXAMPLE_DATA, build, tmp } from './index.js';

/** Clone the real EPDs into `corpus` with fresh UUIDs, versions and names; dependent datasets copied once. */
export function makeCorpus(corpus, count) {
  rmSync(corpus, { recursive: true, force: true });
  mkdirSync(join(corpus, 'processes'), { recursive: true });
  const templates = [];
  for (const exp of readdirSync(EXAMPLE_DATA)) {
    const dir = join(EXAMPLE_DATA, exp, 'ILCD');
    for (const folder of readdirSync(dir)) {
      if (folder === 'processes') {
        for (const f of readdirSync(join(dir, folder))) templates.push(readFileSync(join(dir, folder, f), 'utf8'));
      } else {
        cpSync(join(dir, folder), join(corpus, exp, folder), { recursive: true });
      }
    }
  }
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length];
    const oldUuid = /<common:UUID>([^<]+)<\/common:UUID>/.exec(t)[1];
    const uuid = synthUuid(i);
    const version = `01.${String(Math.floor(i / 1000) % 100).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}`;
    const xml = t
      .replaceAll(oldUuid, uuid)
      .replace(/<common:dataSetVersion>[^<]+</, `<common:dataSetVersion>${version}<`)
      .replace(/(<baseName[^>]*>)([^<]*)/g, `$1$2 #${i}`);
    writeFileSync(join(corpus, 'processes', `${uuid}.xml`), xml);
  }
}

function synthUuid(i) {
  const h = i.toString(16).padStart(12, '0');
  return `b0b0b0b0-0000-4000-8000-${h}`;
}

/**
 * A corpus of `count` EPDs built at level 1 with the nginx, Apache and S3 + CloudFront configs on a free port, in a
 * folder web server workers may enter: what the host tests serve. `config` and `deploy` add to the configuration.
 */
export async function buildHostCorpus(prefix, count, { config = {}, deploy = {} } = {}) {
  const dir = tmp(prefix);
  chmodSync(dir, 0o755);
  const port = await freePort();
  makeCorpus(join(dir, 'corpus'), count);
  const out = join(dir, 'site');
  const cfg = {
    inputs: [join(dir, 'corpus')],
    out,
    validation: { structure: false, xsd: false, rules: false },
    hosts: ['nginx', 'apache', 's3-cloudfront'],
    ...config,
    deploy: { listen: `127.0.0.1:${port}`, serverName: 'localhost', ...deploy },
  };
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify(cfg));
  const result = await build({ config: join(dir, 'po-node.config.json') });
  return { dir, port, out, result, deploy: `${out}-deploy`, file: (p) => readFileSync(join(out, p)) };
}
