import type { ResolvedConfig } from '../config/load.js';
import type { PlannedFile } from '../emit/files.js';

export const HOST_NAMES = ['nginx', 'apache', 'netlify', 'cloudflare-pages', 'github-pages', 's3-cloudfront'] as const;
export type HostName = (typeof HOST_NAMES)[number];

/** Where and how the deploy configs point at the site (config "deploy", flags). */
export interface DeploySettings {
  /** Folder for configs that do not belong in the published tree (absolute). */
  out: string;
  /** Path of the site on the server, written into nginx/Apache configs (default: the build's output folder). */
  siteRoot: string;
  serverName: string;
  /** nginx `listen` value; Apache uses `*:<port>` for a bare port. */
  listen: string;
}

export interface HostContext {
  cfg: ResolvedConfig;
  /** The site plan so far (without health, which is written last). */
  site: readonly PlannedFile[];
}

export interface HostOutput {
  /** Files that go into the published tree. */
  site: PlannedFile[];
  /** Files for the operator: server configs, scripts (relative to the deploy folder). */
  deploy: PlannedFile[];
}

export interface HostEmitter {
  name: HostName;
  title: string;
  emit(ctx: HostContext): HostOutput;
}
