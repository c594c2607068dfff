import { buildCatalog } from './catalog/build.js';
import { buildTime } from './build.js';
import { loadConfig, type ConfigOverrides, type ResolvedConfig } from './config/load.js';
import { countFindings, sortFindings, type Finding } from './findings.js';
import { discoverInputs } from './read/inputs.js';

export interface ValidateOptions extends ConfigOverrides {
  now?: Date;
  onProgress?: (done: number, total: number) => void;
}

export interface ValidateResult {
  /** True when no finding is an error. */
  ok: boolean;
  files: number;
  datasets: number;
  epds: number;
  rejected: number;
  errors: number;
  warnings: number;
  findings: Finding[];
  config: ResolvedConfig;
}

/** `po-node validate`: every check of a build (same levels, same findings), nothing written. */
export async function validate(opts: ValidateOptions = {}): Promise<ValidateResult> {
  const cwd = opts.cwd ?? process.cwd();
  const cfg = loadConfig(opts);
  const discovery = await discoverInputs(cfg.inputs, cwd);
  const catalog = await buildCatalog(discovery.files, discovery.findings, {
    maxFileSize: cfg.limits.maxFileSize,
    validation: cfg.validation,
    now: opts.now ?? buildTime(),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  const findings = sortFindings(catalog.findings);
  const counts = countFindings(findings);
  return {
    ok: counts.error === 0,
    files: catalog.stats.filesSeen,
    datasets: Object.values(catalog.byType).reduce((s, l) => s + l.length, 0),
    epds: catalog.epds.length,
    rejected: catalog.stats.rejectedFiles,
    errors: counts.error,
    warnings: counts.warning,
    findings,
    config: cfg,
  };
}
