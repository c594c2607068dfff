import { PoNodeError } from '../errors.js';

/**
 * The bounds of one `check`, so a node (hostile or broken) cannot make it read without end: bytes per answer,
 * pages and entries per list, minutes in all. Reaching one is reported (report.truncated and a failing item):
 * a check that did not see everything cannot say the node is ready.
 */
export interface CheckLimits {
  /** Decoded bytes of one answer, in MB; the request is aborted at the cap. */
  maxBodyMB: number;
  /** Pages read per list. */
  maxPages: number;
  /** Entries read per list; only these EPDs are fetched. */
  maxEntries: number;
  /** Minutes for the whole check; then no request is made and running ones are cut. */
  maxDurationMin: number;
}

export const DEFAULT_LIMITS: CheckLimits = { maxBodyMB: 64, maxPages: 1000, maxEntries: 100_000, maxDurationMin: 60 };

export type LimitFlag = 'max-body-mb' | 'max-pages' | 'max-entries' | 'max-duration';

/** One limit that was reached, where, and what was left out. */
export interface Truncation {
  limit: LimitFlag;
  value: number;
  /** The path it happened at (a list, a document), when it is one. */
  where?: string;
  message: string;
}

const RANGES: { key: keyof CheckLimits; flag: LimitFlag; min: number; max: number; integer: boolean; unit: string }[] = [
  { key: 'maxBodyMB', flag: 'max-body-mb', min: 1, max: 4096, integer: true, unit: 'MB per answer' },
  { key: 'maxPages', flag: 'max-pages', min: 1, max: 1_000_000, integer: true, unit: 'pages per list' },
  { key: 'maxEntries', flag: 'max-entries', min: 1, max: 10_000_000, integer: true, unit: 'entries per list' },
  { key: 'maxDurationMin', flag: 'max-duration', min: 0.01, max: 10_080, integer: false, unit: 'minutes' },
];

/** The limits with defaults filled in; a value out of range is a usage error (exit 2). */
export function resolveLimits(o: Partial<CheckLimits>): CheckLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const r of RANGES) {
    const v = o[r.key];
    if (v === undefined) continue;
    if (!(typeof v === 'number' && v >= r.min && v <= r.max && (!r.integer || Number.isInteger(v)))) {
      const hint = `${r.integer ? 'a whole number' : 'a number'} from ${r.min} to ${r.max} ${r.unit} (default ${DEFAULT_LIMITS[r.key]})`;
      throw new PoNodeError(`--${r.flag} ${v} is out of range`, { hint });
    }
    out[r.key] = v;
  }
  return out;
}
