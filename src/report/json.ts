import type { BuildResult } from '../build.js';
import type { ValidateResult } from '../check.js';
import { GENERATOR_VERSION } from '../version.js';

/** Machine-readable build report (schemas/build-report.schema.json). */
export function buildReportJson(r: BuildResult): string {
  return `${JSON.stringify(
    {
      generator: { name: 'po-node', version: GENERATOR_VERSION },
      ok: r.ok,
      written: r.written,
      out: r.outDisplay,
      builtAt: r.builtAt,
      status: r.status,
      summary: r.summary,
      findings: r.findings,
      ...(r.health ? { health: r.health } : {}),
    },
    null,
    2,
  )}\n`;
}

/** Machine-readable `po-node validate` report: the counts and every finding. */
export function validateReportJson(r: ValidateResult): string {
  const { ok, files, datasets, epds, rejected, errors, warnings, findings } = r;
  return `${JSON.stringify({ generator: { name: 'po-node', version: GENERATOR_VERSION }, ok, summary: { files, datasets, epds, rejected, errors, warnings }, findings }, null, 2)}\n`;
}
