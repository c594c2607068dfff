import { type Command, InvalidArgumentError } from 'commander';
import type { ConfigOverrides } from '../config/load.js';

/**
 * What every command's registration shares. A command module imports only commander and small leaves at the top;
 * its implementation is loaded with `await import()` in the action, so `--version` and `--help` load almost nothing.
 */
export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** Sets the process exit code of a command that ran (0 ok, 1 problems in the data or not ready). */
export type SetExit = (code: number) => void;

export interface ReadFlags {
  config?: string;
  baseUrl?: string;
  requireDependencies?: boolean;
  report?: string;
  level?: number;
  xsd?: boolean;
  rules?: boolean;
  maxFileSize?: number;
}

/** Inputs, config and the switches of the read stage (src/pipeline/read.ts), which build and validate share. */
export function readOptions(cmd: Command): Command {
  return cmd
    .argument('[inputs...]', 'folders, files, ILCD ZIP exports or quoted glob patterns (default: "inputs" from the config)')
    .option('-c, --config <file>', 'po-node.config.json with node information and settings (default: ./po-node.config.json when present)')
    .option('-b, --base-url <url>', 'public base URL of the node, e.g. https://epd.example.org/node')
    .option('--require-dependencies', 'a reference of a published EPD missing from the input is an error, not a warning')
    .option(
      '--level <n>',
      'highest validation level: 1 index fields only (fastest), 2 structure, 3 XSD, 4 ECO rules (default 4)',
      parseNumber,
    )
    .option('--no-xsd', 'skip XSD validation (level 3)')
    .option('--no-rules', 'skip the ECO data-definition rules (level 4)')
    .option('--max-file-size <mb>', 'reject files larger than this many MB (default 50)', parseNumber);
}

/** Commander sets xsd/rules to true by default; only an explicit --no-* may override the config. */
export function applyReadFlags(opts: ConfigOverrides, o: ReadFlags): void {
  if (o.config) opts.config = o.config;
  if (o.baseUrl) opts.baseUrl = o.baseUrl;
  if (o.requireDependencies) opts.requireDependencies = true;
  if (o.level !== undefined) opts.level = o.level;
  if (o.xsd === false) opts.xsd = false;
  if (o.rules === false) opts.rules = false;
  if (o.maxFileSize !== undefined) opts.maxFileSizeMB = o.maxFileSize;
}

function parseNumber(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${v}" is not a number.`);
  return n;
}
