// Runs one build in its own process and reports wall time and peak RSS as JSON on stdout.
// argv: <input> <out> [JSON build options, e.g. {"clean":true} or {"level":2}]
import { existsSync, readFileSync } from 'node:fs';
import { build } from '../dist/index.js';

const [input, out, json] = process.argv.slice(2);
const t0 = performance.now();
const r = await build({ inputs: [input], out, ...(json ? JSON.parse(json) : {}) });
const ms = performance.now() - t0;
// What runs after the result (the replaced tree deleted, the cache and manifest saved): the process ends after it.
await r.settled;
const settledMs = performance.now() - t0;
const { epds, rejected } = r.summary;
// Linux: VmHWM, this process's own peak; getrusage's maxRSS carries the bench process's RSS at the fork over the exec.
const hwm = existsSync('/proc/self/status') ? /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8')) : null;
const maxRssKB = hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS;
process.stdout.write(
  JSON.stringify({ ms, settledMs, upToDate: r.upToDate, maxRssKB, epds, rejected, status: r.status, cache: r.cache }) + '\n',
);
