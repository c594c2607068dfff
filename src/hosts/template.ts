import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { GENERATOR_VERSION } from '../version.js';

/** Read templates/<path> and fill {{NAME}} placeholders; an unknown placeholder is a bug, not output. */
export function fillTemplate(path: string, values: Record<string, string>): string {
  const text = readFileSync(new URL(`../../templates/${path}`, import.meta.url), 'utf8');
  const all: Record<string, string> = { VERSION: GENERATOR_VERSION, ...values };
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (_, k: string) => {
    const v = all[k];
    if (v === undefined) throw new Error(`internal: template ${path} needs {{${k}}}`);
    return v;
  });
}

/** Folders holding extensionless dataset files, per enabled path set. */
export function datasetDirs(pathSets: { default: boolean; v1: boolean }): string[] {
  const dirs = pathSets.default ? ['processes', 'flows', 'flowproperties', 'unitgroups', 'contacts', 'sources', 'lciamethods'].map((f) => `resource/${f}`) : [];
  if (pathSets.v1) dirs.push('v1/epds');
  return dirs;
}

/** A site path goes into a quoted server config value: refuse characters that would end or escape it. */
export function configPath(p: string, what: string): string {
  if (/["\n\\$]/.test(p)) throw new ConfigError(`The site path ${p} cannot be written into ${what}`, { hint: 'Set "deploy": {"siteRoot": "/srv/po-node/site"} to the path on the server.' });
  return p;
}
