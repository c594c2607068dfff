import type { ResolvedConfig } from '../config/load.js';

/**
 * URLs written into documents. With a base URL they are absolute, as soda4LCA writes them;
 * without one they are root-relative, which works only when the site is served at a host's root.
 */
export function nodeUrl(cfg: Pick<ResolvedConfig, 'baseUrl'>, path: string): string {
  return `${cfg.baseUrl ?? ''}/${path}`;
}

export function datasetUrl(cfg: Pick<ResolvedConfig, 'baseUrl'>, folder: string, uuid: string, version?: string): string {
  return nodeUrl(cfg, `resource/${folder}/${uuid}`) + (version ? `?version=${version}` : '');
}
