import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, isIPv4 } from 'node:net';

/**
 * Which addresses `check` may connect to, so a node cannot turn it against the network it runs in (SSRF):
 * a redirect to 127.0.0.2, 10.0.0.5 or the cloud metadata address 169.254.169.254 is refused before any
 * connection is made. Rule: public addresses are always allowed; a non-public address only when the checked
 * URL itself has an address of the same class (a check of http://127.0.0.1 may reach loopback, not 10/8 or
 * 169.254/16); --allow-private-network allows everything. DNS names are resolved and the address checked is
 * the address connected to (the lookup of the HTTP agent), so a name cannot resolve twice (DNS rebinding).
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'shared' | 'reserved';

export interface Classified {
  cls: AddressClass;
  /** The range it falls in, for the report: "127.0.0.0/8", "169.254.0.0/16, cloud metadata". */
  range: string;
}

const CLASS_NAMES: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  shared: 'a carrier-grade NAT (shared) address',
  reserved: 'a reserved or non-routable address',
};

// [first octets as a number, prefix length, class, range label]; the first match wins, anything else is public.
const V4: [string, number, AddressClass, string][] = [
  ['0.0.0.0', 8, 'reserved', '0.0.0.0/8, "this network"'],
  ['10.0.0.0', 8, 'private', '10.0.0.0/8'],
  ['100.64.0.0', 10, 'shared', '100.64.0.0/10'],
  ['127.0.0.0', 8, 'loopback', '127.0.0.0/8'],
  ['169.254.169.254', 32, 'link-local', '169.254.0.0/16, cloud metadata'],
  ['169.254.0.0', 16, 'link-local', '169.254.0.0/16'],
  ['172.16.0.0', 12, 'private', '172.16.0.0/12'],
  ['192.0.0.0', 24, 'reserved', '192.0.0.0/24, protocol assignments'],
  ['192.0.2.0', 24, 'reserved', '192.0.2.0/24, documentation'],
  ['192.168.0.0', 16, 'private', '192.168.0.0/16'],
  ['198.18.0.0', 15, 'reserved', '198.18.0.0/15, benchmarking'],
  ['198.51.100.0', 24, 'reserved', '198.51.100.0/24, documentation'],
  ['203.0.113.0', 24, 'reserved', '203.0.113.0/24, documentation'],
  ['224.0.0.0', 4, 'reserved', '224.0.0.0/4, multicast'],
  ['240.0.0.0', 4, 'reserved', '240.0.0.0/4 and broadcast'],
];

function v4Number(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function classifyV4(ip: string): Classified {
  const n = v4Number(ip);
  for (const [net, bits, cls, range] of V4) {
    const size = 2 ** (32 - bits);
    if (Math.floor(n / size) === Math.floor(v4Number(net) / size)) return { cls, range };
  }
  return { cls: 'public', range: 'public' };
}

/** The eight 16-bit words of a valid IPv6 address (zone id dropped, a dotted IPv4 tail expanded). */
export function ipv6Words(ip: string): number[] {
  let s = ip.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    s = `${s.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const words = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
  return words.map((w) => parseInt(w, 16));
}

function embeddedV4(hi: number, lo: number): string {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

function classifyV6(ip: string): Classified {
  const w = ipv6Words(ip);
  const zeros = (n: number) => w.slice(0, n).every((x) => x === 0);
  const viaV4 = (v4: string, how: string): Classified => {
    const c = classifyV4(v4);
    return c.cls === 'public' ? c : { cls: c.cls, range: `${c.range}, as ${how} ${v4}` };
  };
  if (zeros(8)) return { cls: 'reserved', range: '::/128, unspecified' };
  if (zeros(7) && w[7] === 1) return { cls: 'loopback', range: '::1/128' };
  // IPv4 written as IPv6 reaches the IPv4 host: judge the IPv4 address.
  if (zeros(5) && w[5] === 0xffff) return viaV4(embeddedV4(w[6]!, w[7]!), 'IPv4-mapped');
  if (zeros(6)) return viaV4(embeddedV4(w[6]!, w[7]!), 'IPv4-compatible');
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return viaV4(embeddedV4(w[6]!, w[7]!), 'NAT64');
  if (w[0] === 0x2002) return viaV4(embeddedV4(w[1]!, w[2]!), '6to4');
  const top = w[0]!;
  if (top === 0x64 && w[1] === 0xff9b && w[2] === 1) return { cls: 'private', range: '64:ff9b:1::/48, local NAT64' };
  if ((top & 0xfe00) === 0xfc00) return { cls: 'private', range: 'fc00::/7, unique local' };
  if ((top & 0xffc0) === 0xfe80) return { cls: 'link-local', range: 'fe80::/10' };
  if ((top & 0xffc0) === 0xfec0) return { cls: 'private', range: 'fec0::/10, site-local' };
  if ((top & 0xff00) === 0xff00) return { cls: 'reserved', range: 'ff00::/8, multicast' };
  if (top === 0x2001 && w[1] === 0x0db8) return { cls: 'reserved', range: '2001:db8::/32, documentation' };
  if (top === 0x2001 && w[1] === 0) return { cls: 'reserved', range: '2001::/32, Teredo' };
  if (top === 0x0100 && w.slice(1, 4).every((x) => x === 0)) return { cls: 'reserved', range: '100::/64, discard' };
  if (top < 0x2000 || top > 0x3fff) return { cls: 'reserved', range: 'outside 2000::/3' };
  return { cls: 'public', range: 'public' };
}

/** The class of an IP address (IPv4, IPv6, IPv6 in URL brackets). */
export function classifyAddress(ip: string): Classified {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) return classifyV4(bare);
  if (isIP(bare.replace(/%.*$/, '')) === 6) return classifyV6(bare);
  return { cls: 'reserved', range: 'not an IP address' };
}

export interface NetPolicyOptions {
  /** --allow-private-network: connect to any address. */
  allowPrivateNetwork?: boolean;
  /** Tests only: these exact addresses count as public, so a test on 127.0.0.1 can play a public node. */
  testOnlyPublicAddresses?: string[];
}

/** Thrown (as a lookup or request error) when an address is refused; never retried. */
export class AddressRefused extends Error {
  readonly code = 'EPONODE_ADDRESS_REFUSED';
}

export class NetPolicy {
  private constructor(
    private readonly allowed: Set<AddressClass> | 'all',
    /** How the policy reads in the report. */
    readonly summary: string,
    private readonly publicForTests: Set<string>,
  ) {}

  /** The policy for a check starting at `start`: its host's addresses decide which classes are allowed. */
  static async forStart(start: URL, o: NetPolicyOptions = {}): Promise<NetPolicy> {
    const publicForTests = new Set(o.testOnlyPublicAddresses ?? []);
    if (o.allowPrivateNetwork) return new NetPolicy('all', 'every address allowed (--allow-private-network)', publicForTests);
    const probe = new NetPolicy('all', '', publicForTests);
    const host = start.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : await resolveAll(host);
    const startClasses = new Set(addresses.map((a) => probe.classify(a).cls));
    const allowed = new Set<AddressClass>(['public', ...startClasses]);
    const own = [...startClasses].filter((c) => c !== 'public');
    const kinds = own.join(', ');
    const summary = own.length
      ? `public and ${kinds} addresses (the checked URL is ${kinds})`
      : 'public addresses only (the checked URL is public)';
    return new NetPolicy(allowed, summary, publicForTests);
  }

  classify(ip: string): Classified {
    if (this.publicForTests.has(ip.replace(/^\[|\]$/g, ''))) return { cls: 'public', range: 'public (test only)' };
    return classifyAddress(ip);
  }

  /** Why `ip` may not be connected to ("a loopback address (127.0.0.0/8), and ..."), or undefined when it may. */
  refusal(ip: string): string | undefined {
    if (this.allowed === 'all') return undefined;
    const c = this.classify(ip);
    if (this.allowed.has(c.cls)) return undefined;
    const rule = this.allowed.size === 1 ? 'the checked URL is public' : `this check allows only ${this.summary}`;
    return `${CLASS_NAMES[c.cls]} (${c.range}), and ${rule}; --allow-private-network allows it`;
  }

  /** A dns.lookup for the HTTP agent: resolves, drops refused addresses, fails when none is left. */
  lookup(resolver: typeof dnsLookup = dnsLookup): typeof dnsLookup {
    const guarded = (hostname: string, options: unknown, callback: unknown): void => {
      type Callback = (e: Error | null, a?: string | LookupAddress[], f?: number) => void;
      const cb = (typeof options === 'function' ? options : callback) as Callback;
      const opts = (typeof options === 'object' && options ? options : {}) as { all?: boolean; family?: number };
      resolver(hostname, { ...opts, all: true }, (err, addresses) => {
        if (err) return cb(err);
        const list = addresses;
        const ok = list.filter((a) => !this.refusal(a.address));
        if (!ok.length) {
          const why = list.length ? `resolves to ${list[0]!.address}, ${this.refusal(list[0]!.address)!}` : 'has no address';
          return cb(new AddressRefused(`${hostname} ${why}`));
        }
        if (opts.all) cb(null, ok);
        else cb(null, ok[0]!.address, ok[0]!.family);
      });
    };
    return guarded as unknown as typeof dnsLookup;
  }
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((ok) => dnsLookup(host, { all: true }, (err, list) => ok(err ? [] : list.map((a) => a.address))));
}
