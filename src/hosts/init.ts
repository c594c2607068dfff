import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { OutputError } from '../errors.js';
import { outputFailure } from '../emit/output-dir.js';
import { parseHosts, type HostName } from '../config/hosts.js';
import { fillTemplate } from './template.js';
import { toPosix } from '../util/paths.js';
import { GENERATOR_VERSION } from '../version.js';

export interface InitOptions {
  host?: string;
  dir?: string;
  force?: boolean;
  cwd: string;
}

const CONFIG_FILE = 'po-node.config.json';
/** The po-node GitHub Action (action.yml at the repository root), at the release of this po-node. */
export const ACTION_REF = `po-node/po-node@v${GENERATOR_VERSION}`;
const OUT = 'site';
/** Hosts whose publishing runs in CI from this repository. */
const WORKFLOWS: Partial<Record<HostName, { template: string; file: string }>> = {
  'github-pages': { template: 'workflows/github-pages.yml', file: '.github/workflows/po-node-github-pages.yml' },
  's3-cloudfront': { template: 'workflows/s3-cloudfront.yml', file: '.github/workflows/po-node-s3-cloudfront.yml' },
};

/** The starting config; JSON has no comments, so they go into "$comment" (allowed and ignored by the schema). */
export function initConfig(hosts: readonly HostName[]): string {
  const cfg: Record<string, unknown> = {
    $schema: 'node_modules/po-node/schemas/config.schema.json',
    $comment: [
      'po-node configuration. Edit the values below; every setting is described in the $schema file.',
      'baseUrl: the public URL of the node without /resource; it goes into every link and nodeinfo.',
      'node: what /nodeinfo says about the node (nodeID: letters, digits, _ - . only).',
      'inputs: folders, files or glob patterns with ILCD XML (an ILCD export folder works as is).',
      'out: the folder to publish. hosts: which host configs `build` writes (docs/hosting.md).',
      'deploy: where nginx/Apache/S3 configs go (default <out>-deploy) and the site path on your server.',
    ],
    baseUrl: 'https://epd.example.org/node',
    node: {
      id: 'EXAMPLE_NODE',
      name: 'Example programme operator EPD node',
      operator: 'Example Programme e.V.',
      description: { en: 'EPDs published by Example Programme' },
      contact: { name: 'Data team', email: 'data@example.org', www: 'https://example.org' },
    },
    inputs: ['ILCD'],
    out: OUT,
  };
  if (hosts.length) cfg.hosts = hosts;
  if (hosts.includes('nginx') || hosts.includes('apache'))
    cfg.deploy = { siteRoot: '/srv/po-node/site', serverName: 'epd.example.org', listen: 80 };
  return `${JSON.stringify(cfg, null, 2)}\n`;
}

/** `po-node init`: write the config and the CI workflows for the chosen hosts; refuses to overwrite without force. */
export function initCommand(o: InitOptions): string[] {
  const dir = resolve(o.cwd, o.dir ?? '.');
  const hosts = parseHosts(o.host ? [o.host] : []);
  const files: { path: string; text: string }[] = [{ path: CONFIG_FILE, text: initConfig(hosts) }];
  for (const h of hosts) {
    const w = WORKFLOWS[h];
    if (w) files.push({ path: w.file, text: fillTemplate(w.template, { CONFIG: CONFIG_FILE, OUT, ACTION: ACTION_REF }) });
  }
  const existing = files.filter((f) => existsSync(join(dir, f.path))).map((f) => f.path);
  if (existing.length && !o.force) {
    throw new OutputError(`Not overwriting ${existing.join(', ')}`, { hint: 'Pass --force to replace them, or --dir to write elsewhere.' });
  }
  try {
    for (const f of files) {
      const abs = join(dir, f.path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, f.text);
    }
  } catch (e) {
    throw outputFailure(e, dir, o.cwd, 'the configuration') ?? e;
  }
  return files.map((f) => toPosix(relative(o.cwd, join(dir, f.path))));
}
