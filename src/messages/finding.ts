import type { Finding, Params, Severity } from '../findings.js';
import { MESSAGES, render, type Code, type ParamsOf } from './catalog.js';

/** Where a finding is, and a severity when it differs from its code's default. */
export type Where = Partial<Pick<Finding, 'severity' | 'file' | 'entry' | 'line' | 'col' | 'xpath'>>;

/**
 * A finding of `code` with its parameters; the message is rendered from the catalogue. Keys keep the order reports
 * have always had (rule id, severity, location, message), `params` last.
 */
export function finding<C extends Code>(code: C, params: ParamsOf<C>, where: Where = {}): Finding {
  return findingOf(code, params as Params, where);
}

/** `finding` for a code known only at run time (a level-4 rule's id); `render` throws on a code or case not catalogued. */
export function findingOf(code: string, params: Params, where: Where = {}): Finding {
  const { severity = (MESSAGES as Record<string, { severity: Severity }>)[code]?.severity ?? 'error', ...at } = where;
  return { ruleId: code, severity, ...at, message: render(code, params), params };
}

/** A finding's text from its code and parameters (the `message` every finding carries was made by this). */
export function renderMessage(f: Pick<Finding, 'ruleId' | 'params'>): string {
  return render(f.ruleId, f.params ?? {});
}
