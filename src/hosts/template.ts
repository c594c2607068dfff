import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { TEMPLATE_ROUTES } from '../site/routes.js';
import { GENERATOR_VERSION } from '../version.js';

/** Read templates/<path> and fill {{NAME}} placeholders (the URL layout from src/site/routes.ts); an unknown one is a bug. */
export function fillTemplate(path: string, values: Record<string, string>): string {
  const text = readFileSync(new URL(`../../templates/${path}`, import.meta.url), 'utf8');
  const all: Record<string, string> = { VERSION: GENERATOR_VERSION, ...TEMPLATE_ROUTES, ...values };
  return text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, k: string) => {
    const v = all[k];
    if (v === undefined) throw new Error(`internal: template ${path} needs {{${k}}}`);
    return v;
  });
}

/** A site path goes into a quoted server config value: refuse characters that would end or escape it. */
export function configPath(p: string, what: string): string {
  if (/["\n\\$]/.test(p))
    throw new ConfigError(`The site path ${p} cannot be written into ${what}`, {
      hint: 'Set "deploy": {"siteRoot": "/srv/po-node/site"} to the path on the server.',
    });
  return p;
}
