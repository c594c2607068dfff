#!/usr/bin/env node
// Thin launcher: all behaviour lives in dist/cli.js (compiled from src/cli.ts).
import { main } from '../dist/cli.js';

// A reader that closed the pipe early (`po-node build --help | head`) is no error: stop quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await main(process.argv);
