// Synthetic corpora from the real example EPDs, for the benchmark and for tests that need a build with many files.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_DATA } from './index.js';

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
