#!/usr/bin/env node
// Thin launcher: all behaviour lives in dist/cli.js (compiled from src/cli.ts).
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv);
