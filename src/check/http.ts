/**
 * The HTTP side of `check`: one polite client. Every request has a timeout, transient failures
 * (network errors, timeouts, 429, 5xx) are retried a bounded number of times with exponential backoff,
 * and at most `concurrency` requests are in flight at once, so a check never hammers a node.
 */
export interface FetchResult {
  url: string;
  /** 0 when no HTTP response arrived (network error or timeout). */
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Time of the last attempt, headers and body included. */
  ms: number;
  attempts: number;
  /** Why no response arrived: "timeout after 5 s", "ECONNREFUSED", ... */
  error?: string;
}

export interface HttpOptions {
  /** Seconds per attempt. */
  timeoutS: number;
  /** Extra attempts after the first, for transient failures only. */
  retries: number;
  concurrency: number;
  /** First backoff in milliseconds, doubled per retry. */
  backoffMs?: number;
  /** Sent as Origin so the node's CORS answer can be seen. */
  origin?: string;
}

export const USER_AGENT = 'po-node-check (+https://github.com/po-node/po-node)';
const MAX_BODY = 64 * 1024 * 1024;
const MAX_BACKOFF_MS = 10_000;
const EMPTY = new Uint8Array();

export class HttpClient {
  readonly log: FetchResult[] = [];
  private active = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly o: HttpOptions) {}

  async get(url: string): Promise<FetchResult> {
    await this.acquire();
    try {
      let r: FetchResult | undefined;
      for (let attempt = 1; ; attempt++) {
        r = await this.once(url, attempt);
        const transient = r.status === 0 || r.status === 429 || r.status >= 500;
        if (!transient || attempt > this.o.retries) break;
        const retryAfter = Number(r.headers['retry-after']);
        const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : (this.o.backoffMs ?? 500) * 2 ** (attempt - 1);
        await sleep(Math.min(wait, MAX_BACKOFF_MS));
      }
      // The log keeps timings and headers only: bodies of thousands of EPDs must not pile up.
      this.log.push({ ...r, body: EMPTY });
      return r;
    } finally {
      this.release();
    }
  }

  private async once(url: string, attempts: number): Promise<FetchResult> {
    const started = performance.now();
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), this.o.timeoutS * 1000);
    try {
      const res = await fetch(url, {
        signal: ctrl.signal,
        redirect: 'follow',
        headers: { 'user-agent': USER_AGENT, accept: '*/*', ...(this.o.origin ? { origin: this.o.origin } : {}) },
      });
      const body = await readBody(res);
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      return { url, status: res.status, headers, body, ms: Math.round(performance.now() - started), attempts };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      const error = ctrl.signal.aborted ? `timeout after ${this.o.timeoutS} s` : (err.cause?.code ?? err.cause?.message ?? err.message);
      return { url, status: 0, headers: {}, body: new Uint8Array(), ms: Math.round(performance.now() - started), attempts, error };
    } finally {
      clearTimeout(timer);
    }
  }

  private async acquire(): Promise<void> {
    if (this.active < this.o.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((ok) => this.waiting.push(ok));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

async function readBody(res: Response): Promise<Uint8Array> {
  const buf = new Uint8Array(await res.arrayBuffer());
  if (buf.length > MAX_BODY) throw new Error(`response larger than ${MAX_BODY} bytes`);
  return buf;
}

function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}

/** "application/xml; charset=UTF-8" -> "application/xml". */
export function mediaType(r: FetchResult): string {
  return (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isXmlType(r: FetchResult): boolean {
  return ['application/xml', 'text/xml'].includes(mediaType(r));
}

export function isJsonType(r: FetchResult): boolean {
  return mediaType(r) === 'application/json';
}

/** A short description of a failed request for evidence lines. */
export function describe(r: FetchResult): string {
  if (r.status === 0) return `${r.url}: no response (${r.error ?? 'error'}${r.attempts > 1 ? `, ${r.attempts} attempts` : ''})`;
  return `${r.url}: HTTP ${r.status}${r.attempts > 1 ? ` after ${r.attempts} attempts` : ''}`;
}
