#!/usr/bin/env node
// Rewrites the tables of codes in docs/rules.md from the message catalogue (src/messages/catalog.ts, built to dist/).
// `npm run docs:rules` writes the file; test/messages/rules-doc.test.js fails when it is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MESSAGES } from '../dist/messages/catalog.js';

export const RULES_DOC = fileURLToPath(new URL('../docs/rules.md', import.meta.url));

const COLUMNS = {
  input: ['id', 'severity', 'checks', 'fix'],
  other: ['id', 'severity', 'checks', 'fix'],
  rules: ['id', 'severity', 'checks', 'source', 'failing example', 'fix'],
};

function cells(code, e, section) {
  const base = [`\`${code}\``, e.severityDoc ?? e.severity, e.meaning];
  return section === 'rules' ? [...base, e.source, e.example, e.fix] : [...base, e.fix];
}

/** The table of one section, in catalogue order. */
export function table(section) {
  const head = COLUMNS[section];
  const rows = Object.entries(MESSAGES)
    .filter(([, e]) => e.section === section)
    .map(([code, e]) => `| ${cells(code, e, section).join(' | ')} |`);
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows].join('\n');
}

/** `text` (docs/rules.md) with every table between `<!-- codes:SECTION -->` and `<!-- /codes:SECTION -->` regenerated. */
export function renderRulesDoc(text) {
  for (const section of Object.keys(COLUMNS)) {
    const re = new RegExp(`(<!-- codes:${section} -->\\n)[\\s\\S]*?(<!-- \\/codes:${section} -->)`);
    if (!re.test(text)) throw new Error(`docs/rules.md has no <!-- codes:${section} --> ... <!-- /codes:${section} --> markers`);
    text = text.replace(re, (_all, open, close) => `${open}${table(section)}\n${close}`);
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const before = readFileSync(RULES_DOC, 'utf8');
  const after = renderRulesDoc(before);
  if (after !== before) writeFileSync(RULES_DOC, after);
  console.log(after === before ? 'docs/rules.md is up to date' : 'docs/rules.md: tables of codes rewritten');
}
