import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { build, type BuildOptions } from './build.js';
import { registerCheck } from './commands/check.js';
import { registerDeploy } from './commands/deploy.js';
import { validate, type ValidateOptions } from './commands/validate.js';
import { loadConfig, type ConfigOverrides } from './config/load.js';
import { formatGithub } from './report/github.js';
import { PoNodeError } from './errors.js';
import type { Finding } from './findings.js';
import { palette, type Palette } from './report/color.js';
import { reportPath, writeReport } from './report/file.js';
import { buildReportJson, validateReportJson } from './report/json.js';
import { progressReporter } from './report/progress.js';
import { formatBuildSummary, formatFindings, formatValidateSummary } from './report/text.js';
import { GENERATOR_VERSION } from './version.js';
import { EPD_DIRS, HEALTH_FILES, listFile, NODEINFO_FILES, PROCESSES, V1_LIST } from './site/routes.js';
import { serveCommand } from './commands/serve.js';
import { initCommand } from './commands/init.js';

export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** Exit codes: 0 success, 1 problems in the data (with --strict) or nothing publishable, 2 usage, config or I/O. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof PoNodeError) {
      const c = palette(io.stderr, io.env);
      io.stderr.write(`${c.red('po-node:')} ${e.message}\n`);
      if (e.hint) io.stderr.write(`${c.dim('hint:')} ${e.hint}\n`);
      if (io.env.DEBUG?.includes('po-node')) {
        // The stack of the error behind it (an EROFS from mkdtemp, ...) says where it happened.
        io.stderr.write(`${e.stack}\n${e.cause instanceof Error ? `caused by: ${e.cause.stack}\n` : ''}`);
      }
      return 2;
    }
    throw e;
  }
  return exitCode;
}

function createProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('po-node')
    .description('Turn a folder of ILCD+EPD XML files into a static ECO Portal PO Node (soda4LCA-compatible API).')
    .version(GENERATOR_VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  $ po-node build data/ --out site --base-url https://epd.example.org/node
  $ po-node build --config po-node.config.json --strict

Docs: README.md (output tree, publishing), docs/rules.md (every finding), schemas/ (JSON Schemas).`,
    );

  readOptions(program.command('build'))
    .description('Read ILCD datasets, validate them, and write the static node into the output folder.')
    .option('-o, --out <dir>', 'output folder (default: "out" from the config, else site)')
    .option('--strict', 'exit 1 and write nothing when any dataset is rejected (for CI)')
    .option('--no-zip-export', 'no per-EPD ZIP exports (resource/processes/<uuid>/zipexport): faster, smaller sites when no client needs them')
    .option('--clean', 'full rebuild: ignore the incremental-build cache, and replace the output folder even if po-node did not create it (its contents are deleted)')
    .option('--json', 'print the build report as JSON on stdout (schemas/build-report.schema.json)')
    .option('--report <file>', 'also write the full JSON report (every finding, ungrouped) to this file')
    .addOption(
      new Option('--format <format>', 'report format: text, json (same as --json), github (the text report, then workflow annotations)')
        .choices(['text', 'json', 'github'])
        .default('text'),
    )
    .option(
      '--cache-dir <dir>',
      'incremental-build cache folder (default: "cacheDir" from the config, else PO_NODE_CACHE_DIR, else ~/.cache/po-node); ' +
        'in CI, a workspace folder restored by actions/cache',
    )
    .option('--host <names>', 'also emit configuration for hosts, comma-separated: nginx, apache, netlify, cloudflare-pages, github-pages, s3-cloudfront (docs/hosting.md)')
    .option('--deploy-out <dir>', 'folder for host configs that are not published (default: <out>-deploy)')
    .option('-q, --quiet', 'print only errors and the summary')
    .addOption(new Option('--verbose', 'also list informational findings (skipped files, duplicates)').conflicts('quiet'))
    .addHelpText(
      'after',
      `
Findings: those of one file are listed under it; the same rule and message in several files is one entry with the
count and the first files. --json and --report <file> list every occurrence.

Output (see README.md for the URL each file answers):
${outputLayout()}

Exit codes: 0 built; 1 --strict with errors, or no EPD could be published; 2 usage, config or I/O error.
Reproducible builds: set SOURCE_DATE_EPOCH to fix the build time written into health and index.html.

Examples:
  $ po-node build ILCD/ --out site --base-url https://epd.example.org/node
  $ po-node build --config po-node.config.json --strict --json > build-report.json
  $ po-node build --host github-pages --cache-dir .po-node-cache --format github   # in a GitHub Actions step

With --host, the site is compared with the host's limits (GitHub Pages 1 GB, Cloudflare Pages 20,000 files and
25 MiB per file, Netlify 54,000 files per folder): a warning names the remedy (docs/hosting.md#host-limits).`,
    )
    .action(async (inputs: string[], o: BuildFlags & ReadFlags) => {
      const c = palette(io.stderr, io.env);
      const format = o.json ? 'json' : o.format;
      const opts: BuildOptions = {
        inputs,
        onProgress: progressReporter(io.stderr, format === 'text' && !o.quiet),
      };
      if (o.out) opts.out = o.out;
      if (o.cacheDir) opts.cacheDir = o.cacheDir;
      if (o.strict) opts.strict = true;
      if (o.zipExport === false) opts.zipExport = false;
      if (o.clean) opts.clean = true;
      if (o.host) opts.hosts = [o.host];
      if (o.deployOut) opts.deployOut = o.deployOut;
      applyReadFlags(opts, o);
      let report: string | undefined;
      if (o.report) {
        // Refuse a report path inside the folders the build replaces before reading anything.
        const cfg = loadConfig(opts);
        report = reportPath(o.report, process.cwd(), [cfg.out, cfg.deploy.out]);
      }
      const result = await build(opts);
      if (report) writeReport(report, buildReportJson(result), process.cwd());
      if (format === 'json') {
        io.stdout.write(buildReportJson(result));
      } else {
        io.stderr.write(`${findingsText(result.findings, o, c)}${formatBuildSummary(result, c)}\n`);
        if (format === 'github') {
          io.stdout.write(formatGithub(shownFindings(result.findings, o).filter((f) => o.verbose || f.severity !== 'info')));
        }
      }
      setExit(result.ok ? 0 : 1);
    });

  readOptions(program.command('validate'))
    .description('Read the inputs as po-node build does (folders, files, ZIP exports; XML safety, ILCD structure, XSD, ECO rules, '
      + 'references) and report; writes no site.')
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
      io.stdout.write(`${findingsText(result.findings, o, c)}${formatValidateSummary(result, c)}\n`);
      if (format === 'github') {
        io.stdout.write(formatGithub(shownFindings(result.findings, o).filter((f) => o.verbose || f.severity !== 'info')));
      }
      setExit(result.ok ? 0 : 1);
    });

  program
    .command('serve')
    .description('Preview a built site on 127.0.0.1, answering every API URL like a configured host, plus soda4LCA paging and search.')
    .argument('[site]', 'built site folder (default: "out" from the config, else site)')
    .option('-c, --config <file>', 'po-node.config.json (for its output folder; default: ./po-node.config.json when present)')
    .option('-p, --port <port>', 'port (default 8080, the example baseUrl; 0 picks a free one)')
    .option('--host <address>', 'interface to bind (default 127.0.0.1)')
    .addHelpText('after', `
List parameters on /resource/processes (as soda4LCA): format=xml|json, startIndex, pageSize (default 500),
search=true with name=<terms> (every term, any case); version=<NN.NN.NNN> on /resource/<type>/<uuid>.`)
    .action(async (site: string | undefined, o: { config?: string; port?: string; host?: string }) => {
      const stopped = new Promise<void>((ok) => {
        process.once('SIGINT', ok);
        process.once('SIGTERM', ok);
      });
      await serveCommand({ ...o, ...(site ? { site } : {}) }, (l) => io.stderr.write(`${l}\n`), stopped);
    });

  program
    .command('init')
    .description('Write a commented po-node.config.json and, with --host, the CI workflow for that host.')
    .option('--host <names>', 'hosts to configure, comma-separated (github-pages and s3-cloudfront get a CI workflow)')
    .option('--dir <folder>', 'where to write (default: the current folder)')
    .option('--force', 'overwrite files that exist')
    .action(async (o: { host?: string; dir?: string; force?: boolean }) => {
      const written = initCommand({ ...o, cwd: process.cwd() });
      for (const f of written) io.stderr.write(`wrote ${f}\n`);
    });
  registerCheck(program, io, setExit);
  registerDeploy(program, io, setExit);
  return program;
}

interface BuildFlags {
  out?: string;
  strict?: boolean;
  zipExport?: boolean;
  clean?: boolean;
  json?: boolean;
  format: string;
  cacheDir?: string;
  quiet?: boolean;
  verbose?: boolean;
  host?: string;
  deployOut?: string;
}

interface ReadFlags {
  config?: string;
  baseUrl?: string;
  requireDependencies?: boolean;
  report?: string;
  level?: number;
  xsd?: boolean;
  rules?: boolean;
  maxFileSize?: number;
}

/** Commander sets xsd/rules (and zipExport) to true by default; only an explicit --no-* may override the config. */
function applyReadFlags(opts: ConfigOverrides, o: ReadFlags): void {
  if (o.config) opts.config = o.config;
  if (o.baseUrl) opts.baseUrl = o.baseUrl;
  if (o.requireDependencies) opts.requireDependencies = true;
  if (o.level !== undefined) opts.level = o.level;
  if (o.xsd === false) opts.xsd = false;
  if (o.rules === false) opts.rules = false;
  if (o.maxFileSize !== undefined) opts.maxFileSizeMB = o.maxFileSize;
}

/** Inputs, config and the switches of the read stage (src/pipeline/read.ts), which build and validate share. */
function readOptions(cmd: Command): Command {
  return cmd
    .argument('[inputs...]', 'folders, files, ILCD ZIP exports or quoted glob patterns (default: "inputs" from the config)')
    .option('-c, --config <file>', 'po-node.config.json with node information and settings (default: ./po-node.config.json when present)')
    .option('-b, --base-url <url>', 'public base URL of the node, e.g. https://epd.example.org/node')
    .option('--require-dependencies', 'a reference of a published EPD missing from the input is an error, not a warning')
    .option('--level <n>', 'highest validation level: 1 index fields only (fastest), 2 structure, 3 XSD, 4 ECO rules (default 4)', parseNumber)
    .option('--no-xsd', 'skip XSD validation (level 3)')
    .option('--no-rules', 'skip the ECO data-definition rules (level 4)')
    .option('--max-file-size <mb>', 'reject files larger than this many MB (default 50)', parseNumber);
}

function parseNumber(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${v}" is not a number.`);
  return n;
}

/** --quiet keeps only errors. */
function shownFindings(findings: readonly Finding[], o: { quiet?: boolean }): readonly Finding[] {
  return o.quiet ? findings.filter((f) => f.severity === 'error') : findings;
}

/** Findings grouped by file, followed by a blank line; empty when there is nothing to show. */
function findingsText(findings: readonly Finding[], o: { quiet?: boolean; verbose?: boolean }, c: Palette): string {
  const text = formatFindings(shownFindings(findings, o), c, { showInfo: o.verbose ?? false });
  return text ? `${text}\n` : '';
}

/** The files of a built site for `build --help`, from the URL layout (src/site/routes.ts). */
function outputLayout(): string {
  const folder = (f: string) => f.replace(/index\.\w+$/, '');
  const rows: [string, string][] = [
    [listFile(PROCESSES, 'xml'), 'EPD list, soda4LCA XML (the default representation)'],
    [listFile(PROCESSES, 'json'), 'EPD list, soda4LCA JSON (format=json)'],
    [`${EPD_DIRS.default}/<uuid>`, 'each EPD, bytes unchanged; resource/<type>/<uuid> for flows, contacts, ...'],
    [NODEINFO_FILES.map(folder).join(', '), 'node information (soda4LCA NodeInfo XML)'],
    [Object.values(HEALTH_FILES).map(folder).join(', '), 'health, written last from a check of the written tree'],
    [`${V1_LIST}, ${EPD_DIRS.v1}/<uuid>`, ' draft v1 path set'],
  ];
  return rows.map(([f, what]) => `  ${f.padEnd(29)}  ${what}`).join('\n');
}
