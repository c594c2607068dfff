// Loaded with `node --import` into a CLI child: prints its peak RSS (kB) on stderr when it exits.
// Linux: VmHWM of /proc/self/status, this process's own peak. getrusage's maxRSS (process.resourceUsage) carries the
// parent's RSS at the fork over the exec, so a child of a test process of 260 MB reported 260 MB whatever it used.
import { readFileSync, writeSync } from 'node:fs';

/** Peak RSS in kB. */
function peakKB() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux: getrusage's figure
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => writeSync(2, `po-node-test maxRSS ${peakKB()}\n`));
