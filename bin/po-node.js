#!/usr/bin/env node
// Thin launcher: all behaviour lives in dist/cli.js (compiled from src/cli.ts). A build on a machine of two cores
// runs in a new Node process with options Node takes only at its start (src/util/launch.ts).
import { fileURLToPath } from 'node:url';
import { launched, launchFlags, runLaunched } from '../dist/util/launch.js';

const args = process.argv.slice(2);
const flags = launchFlags(args);
if (flags.length) {
  const code = await runLaunched(fileURLToPath(import.meta.url), args, flags).catch(() => undefined);
  // Not started (no such node binary, no process left): the command runs here, as it would without the options.
  if (code !== undefined) process.exit(code);
}
launched();

// A reader that closed the pipe early (`po-node build --help | head`) is no error: stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
}

const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv);
