import type { Finding } from '../findings.js';
import { finding } from '../messages/finding.js';
import { bodyFactsOf, type BodyFacts } from '../parse/body.js';
import type { DatasetHeader } from '../parse/extract.js';
import { UUID_RE } from '../parse/ilcd.js';
import { LazyText, type ByteView } from '../parse/safety.js';
import type { XNode } from '../parse/xml.js';
import { RULES, runRules } from '../rules/index.js';

export interface DocumentContext {
  /** Display path of the input file. */
  file: string;
  text: string;
  /** The document's byte view, where it was read as one (findings are located on it, not on the decoded text). */
  view?: ByteView;
  root: XNode;
  /** Body facts of an index-only read; computed from `root` when absent (full parse). */
  body?: BodyFacts;
  dataset: DatasetHeader;
}

export interface DocumentValidationOptions {
  /** Level 4: ECO data-definition rules on EPD processes (default on). */
  rules?: boolean;
  disabledRules?: readonly string[];
  now?: Date;
}

/**
 * Validation of every parsed dataset once its identity is known (level 2, structure; level 4, ECO rules).
 * Errors reject the dataset; warnings are reported and the dataset is still published.
 */
export function validateDocument(ctx: DocumentContext, opts: DocumentValidationOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const { dataset, file } = ctx;
  // soda4LCA exports name files <uuid>_<version>.xml; a different UUID there means a renamed or mixed-up file.
  const base = file.slice(file.lastIndexOf('/') + 1);
  const m = /^([0-9a-fA-F-]{36})(?:_[0-9.]+)?\.xml$/i.exec(base);
  if (m && UUID_RE.test(m[1]!) && m[1]!.toLowerCase() !== dataset.uuid) {
    findings.push(finding('input-uuid-mismatch', { named: m[1]!, uuid: dataset.uuid }, { file }));
  }
  if (dataset.type === 'process' && dataset.process && dataset.names.length === 0) {
    findings.push(finding('process-name', {}, { file, xpath: '/processDataSet/processInformation/dataSetInformation/name/baseName' }));
  }
  // Level 4 applies to EPDs only: plain ILCD processes and dependencies are served as they are.
  if ((opts.rules ?? true) && dataset.process?.typeOfDataSet === 'EPD') {
    const rules = opts.disabledRules?.length ? RULES.filter((r) => !opts.disabledRules!.includes(r.id)) : RULES;
    findings.push(
      ...runRules(
        // The text is decoded only when a finding needs its position (src/catalog/read.ts).
        Object.assign(new LazyText(() => ctx.text), {
          file,
          ...(ctx.view ? { view: ctx.view } : {}),
          root: ctx.root,
          dataset,
          body: ctx.body ?? bodyFactsOf(ctx.root),
          process: dataset.process,
          now: opts.now ?? new Date(),
        }),
        rules,
      ),
    );
  }
  return findings;
}
