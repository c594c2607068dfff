import type { BuildResult } from '../build.js';
import type { ValidateResult } from '../pipeline/validate.js';
import { GENERATOR_VERSION } from '../version.js';

/** Machine-readable build report (schemas/build-report.schema.json): every finding, ungrouped. */
export function buildReportJson(r: BuildResult): string {
  return `${JSON.stringify(
    {
      generator: { name: 'po-node', version: GENERATOR_VERSION },
      command: 'build',
      ok: r.ok,
      written: r.written,
      out: r.outDisplay,
      builtAt: r.builtAt,
      status: r.status,
      summary: r.summary,
      ...(r.paging ? { paging: r.paging } : {}),
      ...(r.precompressed ? { precompressed: r.precompressed } : {}),
      findings: r.findings,
      ...(r.health ? { health: r.health } : {}),
    },
    null,
    2,
  )}\n`;
}

/** Machine-readable `po-node validate` report: the same schema as the build's, nothing written. */
export function validateReportJson(r: ValidateResult): string {
  const { ok, checkedAt, summary, findings } = r;
  const generator = { name: 'po-node', version: GENERATOR_VERSION };
  const report = { generator, command: 'validate', ok, written: false, checkedAt, summary, findings };
  return `${JSON.stringify(report, null, 2)}\n`;
}
