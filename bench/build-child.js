// Runs one build in its own process and reports wall time and peak RSS as JSON on stdout.
import { build } from '../dist/index.js';

const [input, out] = process.argv.slice(2);
const t0 = performance.now();
const r = await build({ inputs: [input], out, clean: true });
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, maxRssKB: process.resourceUsage().maxRSS, epds: r.summary.epds, rejected: r.summary.rejected, status: r.status }) + '\n');
