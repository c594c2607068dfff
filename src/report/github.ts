import type { Finding } from '../findings.js';

/**
 * GitHub Actions workflow commands, one per finding:
 * `::error file=..,line=..,col=..,title=rule-id::message` (info findings become `::notice`).
 */
export function formatGithub(findings: readonly Finding[]): string {
  return findings
    .map((f) => {
      const kind = f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'notice';
      const props: string[] = [];
      if (f.file) props.push(`file=${prop(f.entry ? `${f.file}!${f.entry}` : f.file)}`);
      if (f.line) props.push(`line=${f.line}`);
      if (f.col) props.push(`col=${f.col}`);
      props.push(`title=${prop(f.ruleId)}`);
      const msg = f.xpath ? `${f.message} (at ${f.xpath})` : f.message;
      return `::${kind} ${props.join(',')}::${data(msg)}\n`;
    })
    .join('');
}

// Escaping as in @actions/core (toCommandValue / escapeData / escapeProperty).
function data(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function prop(s: string): string {
  return data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
