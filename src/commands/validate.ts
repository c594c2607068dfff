import { type Command, Option } from 'commander';
import type { ValidateOptions } from '../pipeline/validate.js';
import { palette } from '../util/color.js';
import { applyReadFlags, readOptions, type Io, type ReadFlags, type SetExit } from './shared.js';

/** `po-node validate`: exit 0 no errors, 1 at least one error, 2 usage, config or I/O. */
export function registerValidate(program: Command, io: Io, setExit: SetExit): void {
  readOptions(program.command('validate'))
    .description(
      'Read the inputs as po-node build does (folders, files, ZIP exports; XML safety, ILCD structure, XSD, ECO rules, ' +
        'references) and report; writes no site.',
    )
    .option('--json', 'print the report as JSON on stdout (schemas/build-report.schema.json, as build --json)')
    .addOption(new Option('--format <format>', 'report format').choices(['text', 'json', 'github']).default('text'))
    .option('--report <file>', 'also write the full JSON report (every finding, ungrouped) to this file')
    .option('-q, --quiet', 'print only errors and the summary')
    .addOption(new Option('--verbose', 'also list informational findings').conflicts('quiet'))
    .addHelpText(
      'after',
      `
Exit codes: 0 no errors (warnings allowed); 1 at least one error; 2 usage, config or I/O error.
validate is po-node build without the write: the same inputs, flags and config give the same findings.
Formats:
  text    findings of one file under it; the same rule and message in several files as one entry with the count
          and the first files; coloured on a terminal (NO_COLOR respected)
  json    every finding (schemas/build-report.schema.json)
  github  the text report for the log, then workflow annotations within what GitHub shows per step (10 errors,
          10 warnings, 10 notices): one per rule first, then per message, and a notice counting what was left out
Every rule: docs/rules.md.

Examples:
  $ po-node validate ILCD/ export.zip
  $ po-node validate data/ --format github --report po-node-report.json     # in a GitHub Actions step`,
    )
    .action(async (inputs: string[], o: { json?: boolean; format: string; quiet?: boolean; verbose?: boolean } & ReadFlags) => {
      const [{ validate }, { formatGithub }, { reportPath, writeReport }, { validateReportJson }, text, out] = await Promise.all([
        import('../pipeline/validate.js'),
        import('../report/github.js'),
        import('../report/file.js'),
        import('../report/json.js'),
        import('../report/text.js'),
        import('./findings-text.js'),
      ]);
      const c = palette(io.stdout, io.env);
      const format = o.json ? 'json' : o.format;
      const opts: ValidateOptions = { inputs };
      applyReadFlags(opts, o);
      const report = o.report ? reportPath(o.report, process.cwd(), []) : undefined;
      const result = await validate(opts);
      if (report) writeReport(report, validateReportJson(result), process.cwd());
      if (format === 'json') {
        io.stdout.write(validateReportJson(result));
        return setExit(result.ok ? 0 : 1);
      }
      io.stdout.write(`${out.findingsText(result.findings, o, c)}${text.formatValidateSummary(result, c)}\n`);
      if (format === 'github') {
        io.stdout.write(formatGithub(out.shownFindings(result.findings, o).filter((f) => o.verbose || f.severity !== 'info')));
      }
      setExit(result.ok ? 0 : 1);
    });
}
