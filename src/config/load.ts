import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from '../read/zip.js';
import { DEFAULT_SHAPE_LIMITS, type ShapeLimits } from '../parse/wellformed.js';
import { DEFAULT_XSD_TIMEOUT_SECONDS } from '../validate/xsd.js';
import { validateWithSchema } from '../schemas.js';
import { CLOUDFRONT_COMPRESS_MAX_BYTES, HOSTS_SERVING_PRECOMPRESSED, parseHosts, type DeploySettings, type HostName } from './hosts.js';

export interface NodeInfoConfig {
  id: string;
  name: string;
  operator?: string;
  /** By language code. */
  description: Record<string, string>;
  contact: { name?: string; email?: string; phone?: string; www?: string };
}

/** Configuration after defaults and flags are applied; paths are absolute. */
export interface ResolvedConfig {
  baseUrl?: string;
  node: NodeInfoConfig;
  inputs: string[];
  out: string;
  pathSets: { default: boolean; v1: boolean };
  limits: { maxFileSize: number; zip: ZipLimits; shape: ShapeLimits; xsdTimeoutSeconds: number };
  /** Hosts to emit configuration for (`build --host`). */
  hosts: HostName[];
  deploy: DeploySettings;
  /** Missing references of published EPDs are errors (--require-dependencies). */
  requireDependencies: boolean;
  /** Per-EPD ILCD ZIP exports at resource/processes/<uuid>/zipexport (--zip-export; off by default). */
  zipExport: boolean;
  /** Pre-paged EPD lists (docs/hosting.md): the page sizes written, ascending. */
  paging: { pageSizes: number[] };
  /** Precompressed siblings of the generated documents (docs/hosting.md#precompressed-documents); no encodings: none. */
  precompress: PrecompressConfig;
  /** Validation levels 2-4 (level 1 always runs). */
  validation: ValidationConfig;
  /** Where relative paths were resolved from (config folder, else the working directory). */
  baseDir: string;
  /** Folder of the incremental-build cache (--cache-dir, "cacheDir"); absent: PO_NODE_CACHE_DIR or the user's cache folder. */
  cacheDir?: string;
  configFile?: string;
}

export type Encoding = 'gzip' | 'br';
export const ENCODINGS: readonly Encoding[] = ['gzip', 'br'];
export interface PrecompressConfig {
  encodings: Encoding[];
  /** Smaller files get none. */
  minBytes: number;
}
/** Below about 1 KB the headers outweigh the saving (CloudFront, too, compresses from 1,000 bytes only). */
export const DEFAULT_PRECOMPRESS_MIN_BYTES = 1024;

export interface ValidationConfig {
  /** Level 2: the whole document is parsed and checked (false: level 1, index fields only). */
  structure: boolean;
  xsd: boolean;
  rules: boolean;
  disabledRules: string[];
}

export interface ConfigOverrides {
  config?: string;
  /** Highest validation level to run (1-4); --level. */
  level?: number;
  /** false: skip XSD validation (--no-xsd). */
  xsd?: boolean;
  /** false: skip the ECO data-definition rules (--no-rules). */
  rules?: boolean;
  /** --max-file-size, in MB. */
  maxFileSizeMB?: number;
  inputs?: string[];
  out?: string;
  baseUrl?: string;
  cwd?: string;
  /** Host names (comma lists allowed); replace the config's `hosts`. */
  hosts?: string[];
  deployOut?: string;
  requireDependencies?: boolean;
  /** true: per-EPD ZIP exports (--zip-export); false: none (--no-zip-export, the default). */
  zipExport?: boolean;
  /** false: no precompressed siblings (--no-precompress). */
  precompress?: boolean;
  /** Folder of the incremental-build cache (--cache-dir), relative to the working directory. */
  cacheDir?: string;
}

interface RawConfig {
  baseUrl?: string;
  node?: {
    id?: string;
    name?: string;
    operator?: string;
    description?: string | Record<string, string>;
    contact?: NodeInfoConfig['contact'];
  };
  inputs?: string[];
  out?: string;
  pathSets?: { default?: boolean; v1?: boolean };
  limits?: {
    maxFileSizeMB?: number;
    maxZipSizeMB?: number;
    maxZipEntrySizeMB?: number;
    maxZipTotalSizeMB?: number;
    maxZipRatio?: number;
    maxAttributes?: number;
    maxDepth?: number;
    maxNodes?: number;
    maxIndexKB?: number;
    maxTokenKB?: number;
    xsdTimeoutSeconds?: number;
  };
  hosts?: string[];
  deploy?: { out?: string; siteRoot?: string; serverName?: string; listen?: string | number; nginxBrotli?: boolean };
  requireDependencies?: boolean;
  zipExport?: boolean;
  paging?: { pageSizes?: number[] };
  precompress?: boolean | { encodings?: Encoding[]; minBytes?: number };
  cacheDir?: string;
  validation?: { structure?: boolean; xsd?: boolean; rules?: boolean; disabledRules?: string[] };
}

export const DEFAULT_CONFIG_FILE = 'po-node.config.json';
export const DEFAULT_NODE_ID = 'PO_NODE';
export const DEFAULT_OUT = 'site';
export const DEFAULT_MAX_FILE_MB = 50;
/**
 * The page sizes real soda4LCA clients ask for: 1 is ilcdlib's probe for totalSize (`startIndex=0&pageSize=1&search=true`),
 * 100 its page after that; 500 is soda4LCA's default pageSize (AbstractDataSetResource, @DefaultValue("500")), what a
 * client that sends none gets; 1000 is openLCA's SodaClient page (`pageSize=1000&startIndex=0`, then on to an empty page).
 */
export const DEFAULT_PAGE_SIZES: readonly number[] = [1, 100, 500, 1000];

/** Defaults, then the config file, then flags: the later wins. */
export function loadConfig(o: ConfigOverrides = {}): ResolvedConfig {
  const cwd = o.cwd ?? process.cwd();
  let raw: RawConfig = {};
  let baseDir = cwd;
  let configFile: string | undefined;
  // Like most CLIs, a config file in the working directory is used without being named.
  const configName = o.config ?? (existsSync(resolve(cwd, DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  if (configName) {
    configFile = resolve(cwd, configName);
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`Cannot read config file ${configName}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
        hint: 'Create one with `po-node init`, or leave out --config to use the defaults.',
      });
    }
    try {
      raw = JSON.parse(text) as RawConfig;
    } catch (e) {
      throw new ConfigError(`Config file ${configName} is not valid JSON: ${(e as Error).message}`);
    }
    const problems = validateWithSchema('config', raw);
    if (problems.length) {
      throw new ConfigError(`Config file ${configName} is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`, {
        hint: 'See schemas/config.schema.json for every setting.',
      });
    }
    baseDir = dirname(configFile);
  }
  if (o.level !== undefined && !(Number.isInteger(o.level) && o.level >= 1 && o.level <= 4)) {
    throw new ConfigError(`--level ${String(o.level)} is not a validation level`, {
      hint: 'Use 1-4: 1 safe XML and index fields only, 2 ILCD structure of the whole document, 3 XSD, 4 ECO rules (default).',
    });
  }
  if (o.maxFileSizeMB !== undefined && !(o.maxFileSizeMB > 0)) {
    throw new ConfigError(`--max-file-size ${String(o.maxFileSizeMB)} is not a positive number of MB`, {
      hint: 'Example: --max-file-size 100',
    });
  }
  if (o.baseUrl !== undefined) checkBaseUrl(o.baseUrl, '--base-url', 'Example: --base-url https://epd.example.org/node');
  else if (raw.baseUrl !== undefined) {
    checkBaseUrl(raw.baseUrl, `"baseUrl" in ${configName}`, 'Example: "baseUrl": "https://epd.example.org/node"');
  }
  const baseUrl = (o.baseUrl ?? raw.baseUrl)?.replace(/\/+$/, '');
  const desc = raw.node?.description;
  const node: NodeInfoConfig = {
    id: raw.node?.id ?? DEFAULT_NODE_ID,
    name: raw.node?.name ?? 'EPD data node',
    description: typeof desc === 'string' ? { en: desc } : { ...(desc ?? {}) },
    contact: { ...(raw.node?.contact ?? {}) },
  };
  if (raw.node?.operator) node.operator = raw.node.operator;
  const inputs = o.inputs?.length ? o.inputs.map((p) => resolve(cwd, p)) : (raw.inputs ?? []).map((p) => resolve(baseDir, p));
  const out = o.out ? resolve(cwd, o.out) : resolve(baseDir, raw.out ?? DEFAULT_OUT);
  const hosts = parseHosts(o.hosts?.length ? o.hosts : (raw.hosts ?? []));
  const cfg: ResolvedConfig = {
    node,
    inputs,
    out,
    pathSets: { default: raw.pathSets?.default ?? true, v1: raw.pathSets?.v1 ?? true },
    limits: {
      maxFileSize: Math.round((o.maxFileSizeMB ?? raw.limits?.maxFileSizeMB ?? DEFAULT_MAX_FILE_MB) * 1024 * 1024),
      zip: {
        maxArchiveSize: raw.limits?.maxZipSizeMB ? Math.round(raw.limits.maxZipSizeMB * 1024 * 1024) : DEFAULT_ZIP_LIMITS.maxArchiveSize,
        maxEntrySize: raw.limits?.maxZipEntrySizeMB
          ? Math.round(raw.limits.maxZipEntrySizeMB * 1024 * 1024)
          : DEFAULT_ZIP_LIMITS.maxEntrySize,
        maxTotalSize: raw.limits?.maxZipTotalSizeMB
          ? Math.round(raw.limits.maxZipTotalSizeMB * 1024 * 1024)
          : DEFAULT_ZIP_LIMITS.maxTotalSize,
        maxRatio: raw.limits?.maxZipRatio ?? DEFAULT_ZIP_LIMITS.maxRatio,
      },
      shape: {
        maxAttributes: raw.limits?.maxAttributes ?? DEFAULT_SHAPE_LIMITS.maxAttributes,
        maxDepth: raw.limits?.maxDepth ?? DEFAULT_SHAPE_LIMITS.maxDepth,
        maxNodes: raw.limits?.maxNodes ?? DEFAULT_SHAPE_LIMITS.maxNodes,
        maxTokenKB: raw.limits?.maxTokenKB ?? DEFAULT_SHAPE_LIMITS.maxTokenKB,
        maxIndexKB: raw.limits?.maxIndexKB ?? DEFAULT_SHAPE_LIMITS.maxIndexKB,
      },
      xsdTimeoutSeconds: raw.limits?.xsdTimeoutSeconds ?? DEFAULT_XSD_TIMEOUT_SECONDS,
    },
    requireDependencies: o.requireDependencies ?? raw.requireDependencies ?? false,
    zipExport: o.zipExport ?? raw.zipExport ?? false,
    paging: { pageSizes: [...new Set(raw.paging?.pageSizes ?? DEFAULT_PAGE_SIZES)].sort((a, b) => a - b) },
    hosts,
    precompress: precompressConfig(o.precompress ?? raw.precompress, hosts),
    // Host configs that do not belong in the published tree go to a sibling of it: <out>-deploy.
    deploy: {
      out: o.deployOut ? resolve(cwd, o.deployOut) : raw.deploy?.out ? resolve(baseDir, raw.deploy.out) : `${out}-deploy`,
      siteRoot: raw.deploy?.siteRoot ?? out,
      serverName: raw.deploy?.serverName ?? (baseUrl ? new URL(baseUrl).hostname : '_'),
      listen: String(raw.deploy?.listen ?? 80),
      nginxBrotli: raw.deploy?.nginxBrotli ?? false,
    },
    validation: {
      structure: (o.level !== undefined ? o.level >= 2 : undefined) ?? raw.validation?.structure ?? true,
      xsd: o.xsd ?? (o.level !== undefined ? o.level >= 3 : undefined) ?? raw.validation?.xsd ?? true,
      rules: o.rules ?? (o.level !== undefined ? o.level >= 4 : undefined) ?? raw.validation?.rules ?? true,
      disabledRules: [...(raw.validation?.disabledRules ?? [])],
    },
    baseDir,
  };
  if (baseUrl) cfg.baseUrl = baseUrl;
  if (configFile) cfg.configFile = configFile;
  const cacheDir = o.cacheDir ? resolve(cwd, o.cacheDir) : raw.cacheDir ? resolve(baseDir, raw.cacheDir) : undefined;
  if (cacheDir) cfg.cacheDir = cacheDir;
  if (!cfg.pathSets.default && !cfg.pathSets.v1)
    throw new ConfigError('pathSets turns off both path sets; nothing would be served', {
      hint: 'Set pathSets.default or pathSets.v1 to true.',
    });
  return cfg;
}

/**
 * Siblings by default, except where no host named needs them all: GitHub Pages, Netlify and Cloudflare Pages compress
 * on their own and would only get more files to upload; CloudFront compresses up to its limit, so with it only larger
 * documents get siblings (docs/hosting.md#precompressed-documents).
 */
function precompressConfig(v: RawConfig['precompress'], hosts: readonly HostName[]): PrecompressConfig {
  const all = hosts.length === 0 || hosts.some((h) => HOSTS_SERVING_PRECOMPRESSED.includes(h));
  if (v === false || (v === undefined && !all && !hosts.includes('s3-cloudfront'))) {
    return { encodings: [], minBytes: DEFAULT_PRECOMPRESS_MIN_BYTES };
  }
  const o = typeof v === 'object' ? v : {};
  const minBytes = o.minBytes ?? (v === undefined && !all ? CLOUDFRONT_COMPRESS_MAX_BYTES + 1 : DEFAULT_PRECOMPRESS_MIN_BYTES);
  return { encodings: [...new Set(o.encodings ?? ENCODINGS)], minBytes };
}

/**
 * The base URL goes into every link, nodeinfo and the host configurations: an absolute http(s) URL of plain URL
 * characters (RFC 3986), without user name, query or fragment. Anything else is refused here with its reason, not
 * met later as a TypeError.
 */
function checkBaseUrl(value: string, name: string, example: string): void {
  const refuse = (why: string, hint = example) => {
    throw new ConfigError(`${name} "${value}" is not a usable base URL: ${why}`, { hint });
  };
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return refuse('it cannot be parsed as a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') refuse(`the scheme is ${u.protocol.slice(0, -1)}, not http or https`);
  if (!u.hostname) refuse('it has no host name');
  if (u.username || u.password) refuse('it contains a user name or password');
  if (/[?#]/.test(value)) refuse('it has a query (?) or fragment (#)');
  const bad = /[^A-Za-z0-9\-._~:/@!$&'()*+,;=%[\]]|%(?![0-9A-Fa-f]{2})/.exec(value);
  if (bad) {
    const c = bad[0] === '%' ? '% not followed by two hex digits' : `the character ${JSON.stringify(bad[0])} is not allowed in a URL`;
    const fixed = u.href.replace(/\/$/, '');
    refuse(c, fixed !== value && !/[^\x21-\x7e]/.test(fixed) ? `Did you mean ${fixed}? ${example}` : example);
  }
}
