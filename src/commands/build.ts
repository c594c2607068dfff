import { type Command, Option } from 'commander';
import type { BuildOptions } from '../build.js';
import { palette } from '../util/color.js';
import { applyReadFlags, readOptions, type Io, type ReadFlags, type SetExit } from './shared.js';
import { EPD_DIRS, HEALTH_FILES, listFile, NODEINFO_FILES, PROCESSES, V1_LIST } from '../site/routes.js';

interface BuildFlags {
  out?: string;
  strict?: boolean;
  zipExport?: boolean;
  precompress?: boolean;
  clean?: boolean;
  json?: boolean;
  format: string;
  cacheDir?: string;
  quiet?: boolean;
  verbose?: boolean;
  host?: string;
  deployOut?: string;
}

/** `po-node build`: exit 0 built, 1 --strict with errors or nothing publishable, 2 usage, config or I/O. */
export function registerBuild(program: Command, io: Io, setExit: SetExit): void {
  readOptions(program.command('build'))
    .description('Read ILCD datasets, validate them, and write the static node into the output folder.')
    .option('-o, --out <dir>', 'output folder (default: "out" from the config, else site)')
    .option('--strict', 'exit 1 and write nothing when any dataset is rejected (for CI)')
    .option(
      '--zip-export',
      'also write a per-EPD ILCD ZIP export (resource/processes/<uuid>/zipexport, the EPD with its dependencies): ' +
        "only ilcdlib's converter fetches it; makes the site about 7x larger (see below)",
    )
    .option('--no-zip-export', 'no per-EPD ZIP exports (the default; overrides "zipExport": true in the config)')
    .option(
      '--no-precompress',
      'no precompressed .gz/.br siblings of the lists and pages (default: written unless every --host compresses on its own)',
    )
    .option(
      '--clean',
      'full rebuild: ignore the incremental-build cache, and replace the output folder even if po-node did not create it (its contents are deleted)',
    )
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
    .option(
      '--host <names>',
      'also emit configuration for hosts, comma-separated: nginx, apache, netlify, cloudflare-pages, github-pages, s3-cloudfront (docs/hosting.md)',
    )
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
Beside the output folder, .<out>.spare is the site the last build replaced, made hard links to the current site's
files: the next build writes into it instead of a new tree (docs/performance.md#incremental-builds). Delete it with
the site; --clean replaces it.

Examples:
  $ po-node build ILCD/ --out site --base-url https://epd.example.org/node
  $ po-node build --config po-node.config.json --strict --json > build-report.json
  $ po-node build --host github-pages --cache-dir .po-node-cache --format github   # in a GitHub Actions step
  $ po-node build ILCD/ --zip-export   # also per-EPD ZIP exports, for clients that use ilcdlib's converter

Per-EPD ZIP exports (--zip-export, config "zipExport": true) are what soda4LCA answers at
/resource/processes/<uuid>/zipexport: the EPD with every dataset and document it references, in one ILCD ZIP. Only
ilcdlib's converter fetches them (the ECO Portal and openLCA read the datasets one by one). Each export repeats the
EPD's dependencies, so they make the site about 7x the size of the corpus and the build slower: turn them on when a
client of the node uses that converter.

With --host, the site is compared with the host's limits (GitHub Pages 1 GB, Cloudflare Pages 20,000 files and
25 MiB per file, Netlify 54,000 files per folder): a warning names the remedy (docs/hosting.md#host-limits).`,
    )
    .action(async (inputs: string[], o: BuildFlags & ReadFlags) => {
      const [
        { build },
        { loadConfig },
        { formatGithub },
        { reportPath, writeReport },
        { buildReportJson },
        { progressReporter },
        text,
        out,
      ] = await Promise.all([
        import('../build.js'),
        import('../config/load.js'),
        import('../report/github.js'),
        import('../report/file.js'),
        import('../report/json.js'),
        import('../report/progress.js'),
        import('../report/text.js'),
        import('./findings-text.js'),
      ]);
      const c = palette(io.stderr, io.env);
      const format = o.json ? 'json' : o.format;
      const opts: BuildOptions = {
        inputs,
        onProgress: progressReporter(io.stderr, format === 'text' && !o.quiet),
      };
      if (o.out) opts.out = o.out;
      if (o.cacheDir) opts.cacheDir = o.cacheDir;
      if (o.strict) opts.strict = true;
      if (o.zipExport !== undefined) opts.zipExport = o.zipExport;
      if (o.precompress === false) opts.precompress = false;
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
        io.stderr.write(`${out.findingsText(result.findings, o, c)}${text.formatBuildSummary(result, c)}\n`);
        if (format === 'github') {
          io.stdout.write(formatGithub(out.shownFindings(result.findings, o).filter((f) => o.verbose || f.severity !== 'info')));
        }
      }
      setExit(result.ok ? 0 : 1);
      // The replaced site is deleted after the report is out; the process ends once it is gone.
      await result.settled;
    });
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
    ['<document>.gz, <document>.br', 'precompressed lists and pages of 1 KiB and more (config "precompress")'],
  ];
  return rows.map(([f, what]) => `  ${f.padEnd(29)}  ${what}`).join('\n');
}
