import { readStage, type ReadStageOptions, type ReadSummary } from './read.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import type { Finding } from '../findings.js';

export type ValidateOptions = ReadStageOptions;

export interface ValidateResult {
  /** True when no finding is an error. */
  ok: boolean;
  /** The reference time of the date rules (ISO 8601), as a build's builtAt. */
  checkedAt: string;
  summary: ReadSummary;
  findings: Finding[];
  references: ReferenceReport;
  config: ResolvedConfig;
}

/**
 * `po-node validate`: the read stage of `po-node build` (src/pipeline/read.ts) without the write, so both report
 * the same findings. No cache is read or written: the result never depends on an earlier build.
 */
export async function validate(opts: ValidateOptions = {}): Promise<ValidateResult> {
  // Nothing is written, so no per-EPD ZIP closures are kept; findings do not depend on them.
  const r = await readStage({ ...opts, zipExport: false });
  return {
    ok: r.summary.errors === 0,
    checkedAt: r.now.toISOString(),
    summary: r.summary,
    findings: r.findings,
    references: r.references,
    config: r.cfg,
  };
}
