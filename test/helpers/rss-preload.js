// Loaded with `node --import` into a CLI child: prints its peak RSS (kB) on stderr when it exits.
import { writeSync } from 'node:fs';

process.on('exit', () => writeSync(2, `po-node-test maxRSS ${process.resourceUsage().maxRSS}\n`));
