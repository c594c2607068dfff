import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ACCEPT_ENCODING, BodyTooLarge, readCapped } from './body.js';
import { AddressRefused, type NetPolicy } from './net-policy.js';

/**
 * The HTTP side of `check`: one polite client. Every request has a timeout, transient failures
 * (network errors, timeouts, 429, 5xx) are retried a bounded number of times with exponential backoff,
 * and at most `concurrency` requests are in flight at once, so a check never hammers a node.
 * A node is also untrusted: bodies are capped while they stream, redirects are followed by hand (at most 5)
 * and every address connected to passes the network policy (see net-policy.ts).
 */
export interface FetchResult {
  url: string;
  /** 0 when no usable HTTP answer arrived (see failure). */
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Time of the last attempt, headers and body included. */
  ms: number;
  attempts: number;
  /** Why no answer arrived: "timeout after 5 s", "ECONNREFUSED", "redirect to ... refused: ...". */
  error?: string;
  /** network and timeout are retried; the others are final. budget: not made, the time budget ran out. */
  failure?: 'network' | 'timeout' | 'refused' | 'too-large' | 'budget';
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
  /** Decoded bytes per body at most (default 64 MB). */
  maxBodyBytes?: number;
  /** Which addresses may be connected to; without it, any. */
  policy?: NetPolicy;
  /** Epoch ms after which no request is made and running ones are cut (the check's time budget). */
  deadline?: number;
}

export const USER_AGENT = 'po-node-check (+https://github.com/po-node/po-node)';
export const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const MAX_BACKOFF_MS = 10_000;
const EMPTY = new Uint8Array();
// The request log feeds CORS, content-type, caching and timing figures: only these headers are kept.
const LOGGED_HEADERS = ['content-type', 'access-control-allow-origin', 'cache-control', 'etag', 'last-modified'];

export class HttpClient {
  readonly log: FetchResult[] = [];
  /** Requests not made or cut because the time budget ran out. */
  budgetHits = 0;
  private active = 0;
  private waiting: (() => void)[] = [];
  private readonly agents: { http: HttpAgent; https: HttpsAgent };

  constructor(private readonly o: HttpOptions) {
    const agent = { keepAlive: true, maxSockets: o.concurrency };
    this.agents = { http: new HttpAgent(agent), https: new HttpsAgent(agent) };
  }

  async get(url: string): Promise<FetchResult> {
    await this.acquire();
    try {
      let r: FetchResult | undefined;
      for (let attempt = 1; ; attempt++) {
        r = await this.once(url, attempt);
        const transient = r.failure === 'network' || r.failure === 'timeout' || r.status === 429 || r.status >= 500;
        if (!transient || attempt > this.o.retries) break;
        const retryAfter = Number(r.headers['retry-after']);
        const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : (this.o.backoffMs ?? 500) * 2 ** (attempt - 1);
        await sleep(Math.min(wait, MAX_BACKOFF_MS, Math.max(0, this.remainingMs())));
      }
      // The log keeps timings and a few headers only: bodies of thousands of EPDs must not pile up.
      if (r.failure === 'budget') this.budgetHits++;
      else this.log.push({ ...r, headers: pick(r.headers, LOGGED_HEADERS), body: EMPTY });
      return r;
    } finally {
      this.release();
    }
  }

  /** Close kept-alive connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private remainingMs(): number {
    return this.o.deadline === undefined ? Infinity : this.o.deadline - Date.now();
  }

  private async once(url: string, attempts: number): Promise<FetchResult> {
    const started = performance.now();
    const result = (r: Omit<FetchResult, 'url' | 'ms' | 'attempts'>): FetchResult => {
      return { url, ms: Math.round(performance.now() - started), attempts, ...r };
    };
    const fail = (failure: FetchResult['failure'], error: string) => result({ status: 0, headers: {}, body: EMPTY, error, failure });
    const remaining = this.remainingMs();
    if (remaining <= 0) return fail('budget', 'not requested: the time budget of the check ran out (--max-duration)');
    const byBudget = remaining < this.o.timeoutS * 1000;
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), Math.min(this.o.timeoutS * 1000, remaining));
    let current = new URL(url);
    try {
      for (let hop = 0; ; hop++) {
        const refused = this.refusal(current);
        if (refused) return fail('refused', `${hop ? 'redirect to ' : ''}${current.href} not fetched: ${refused}`);
        const res = await this.request(current, ctrl.signal);
        const location = res.headers.location;
        if ([301, 302, 303, 307, 308].includes(res.statusCode ?? 0) && location) {
          res.destroy();
          if (hop >= MAX_REDIRECTS) return fail('network', `more than ${MAX_REDIRECTS} redirects`);
          const next = new URL(location, current);
          if (!/^https?:$/.test(next.protocol)) return fail('refused', `redirect to ${next.href} not followed: not HTTP(S)`);
          current = next;
          continue;
        }
        const body = await readCapped(res, this.o.maxBodyBytes ?? DEFAULT_MAX_BODY);
        return result({ status: res.statusCode ?? 0, headers: flatHeaders(res), body });
      }
    } catch (e) {
      const err = e as Error & { code?: string };
      if (ctrl.signal.aborted && byBudget) return fail('budget', 'cut: the time budget of the check ran out (--max-duration)');
      if (ctrl.signal.aborted) return fail('timeout', `timeout after ${this.o.timeoutS} s`);
      const where = current.href !== url ? `redirect to ${current.href}: ` : '';
      if (err instanceof BodyTooLarge) return fail('too-large', where + err.message);
      if (err instanceof AddressRefused) return fail('refused', `${where && 'redirect to '}${current.href} not fetched: ${err.message}`);
      // System errors by their code (ECONNREFUSED, EAI_AGAIN), others (a corrupt gzip body) by their message.
      return fail('network', where + (err.code && /^E[A-Z_]+$/.test(err.code) ? err.code : err.message));
    } finally {
      clearTimeout(timer);
    }
  }

  /** An IP literal is checked here: the agent's lookup, which checks names, is not called for one. */
  private refusal(u: URL): string | undefined {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const why = isIP(host) && this.o.policy ? this.o.policy.refusal(host) : undefined;
    return why && `${host} is ${why}`;
  }

  private request(u: URL, signal: AbortSignal): Promise<IncomingMessage> {
    const origin = this.o.origin && { origin: this.o.origin };
    const headers = { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': ACCEPT_ENCODING, ...origin };
    const https = u.protocol === 'https:';
    const agent = https ? this.agents.https : this.agents.http;
    const options = { agent, headers, signal, ...(this.o.policy && { lookup: this.o.policy.lookup() }) };
    return new Promise((ok, ko) => {
      const req = (https ? httpsRequest : httpRequest)(u, options, ok);
      req.on('error', ko);
      req.end();
    });
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

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return headers;
}

function pick(headers: Record<string, string>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (headers[k] !== undefined) out[k] = headers[k];
  return out;
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

/** Why a request did not give a usable answer: "HTTP 404", "no response (timeout after 5 s)", "... refused: ...". */
export function reason(r: FetchResult): string {
  const tries = r.attempts > 1 ? `, ${r.attempts} attempts` : '';
  if (r.status !== 0) return `HTTP ${r.status}${r.attempts > 1 ? ` after ${r.attempts} attempts` : ''}`;
  if (r.failure === 'refused' || r.failure === 'too-large' || r.failure === 'budget') return `${r.error}${tries}`;
  return `no response (${r.error ?? 'error'}${tries})`;
}

/** A short description of a failed request for evidence lines. */
export function describe(r: FetchResult): string {
  return `${r.url}: ${reason(r)}`;
}
