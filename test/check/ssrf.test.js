// `check` cannot be turned against its own network: a public node that redirects to loopback, private,
// link-local (cloud metadata) or IPv4-mapped addresses gets a refusal in the report and no connection is made.
// 127.0.0.3 plays the public node (testOnlyPublicAddresses); listeners on 127.0.0.2 and 127.0.0.1 count connections.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyAddress, NetPolicy } from '../../dist/check/net-policy.js';
import { runCheck, validateWithSchema } from '../../dist/index.js';
import { startServer } from './hostile-servers.js';

const running = [];
const t = suite('check network policy');
t.after.each(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function server(handler, host) {
  const s = await startServer(handler, host);
  running.push(s);
  return s;
}

/** An internal service holding a secret: it must never be reached. */
const secret = (host) =>
  server((url, req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end('<nodeInfo>SECRET-TOKEN</nodeInfo>');
  }, host);

/** A node that redirects each path of `targets` to its URL and answers 404 elsewhere. */
const redirector = (targets, host) =>
  server((url, req, res) => {
    const to = targets[url.pathname];
    res.writeHead(to ? 302 : 404, to ? { location: to } : {});
    res.end();
  }, host);

const QUICK = { retries: 0, timeoutS: 3, paths: /** @type {const} */ ('both') };
const evidence = (r) => r.items.flatMap((i) => i.evidence).join('\n');

t('a public node redirecting to 127.0.0.2, localhost, [::ffff:127.0.0.2] and 169.254.169.254: refused, nothing connected', async () => {
  const inner = await secret('127.0.0.2');
  const local = await secret('127.0.0.1');
  const node = await redirector(
    {
      '/nodeinfo': `${inner.url}/latest`,
      '/resource/nodeinfo': 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      '/healthz': `http://[::ffff:127.0.0.2]:${inner.port}/`,
      '/v1/healthz': `http://localhost:${local.port}/`,
    },
    '127.0.0.3',
  );
  const t0 = Date.now();
  const r = await runCheck(node.url, { ...QUICK, testOnlyPublicAddresses: ['127.0.0.3'] });
  assert.equal(validateWithSchema('check-report', r), []);
  assert.is(inner.stats.connections, 0, 'no connection to 127.0.0.2');
  assert.is(local.stats.connections, 0, 'no connection to 127.0.0.1 (localhost)');
  assert.ok(Date.now() - t0 < 15_000, 'refused at once, not timed out');
  const text = evidence(r);
  assert.not.match(JSON.stringify(r), 'SECRET-TOKEN');
  const why = 'is a loopback address (127.0.0.0/8), and the checked URL is public; --allow-private-network allows it';
  assert.match(text, `/nodeinfo: redirect to ${inner.url}/latest not fetched: 127.0.0.2 ${why}`);
  const metadata = 'http://169.254.169.254/latest/meta-data/iam/security-credentials/';
  const linkLocal = '169.254.169.254 is a link-local address (169.254.0.0/16, cloud metadata)';
  assert.match(text, `/resource/nodeinfo: redirect to ${metadata} not fetched: ${linkLocal}`);
  const mapped = `http://[::ffff:7f00:2]:${inner.port}/`;
  const asMapped = '::ffff:7f00:2 is a loopback address (127.0.0.0/8, as IPv4-mapped 127.0.0.2)';
  assert.match(text, `/healthz: redirect to ${mapped} not fetched: ${asMapped}`);
  assert.match(text, `/v1/healthz: redirect to http://localhost:${local.port}/ not fetched: localhost resolves to `);
  assert.is(r.limits.network, 'public addresses only (the checked URL is public)');
  assert.is(r.ready, false);
});

t('--allow-private-network: the same redirect is followed', async () => {
  const inner = await secret('127.0.0.2');
  const node = await redirector({ '/nodeinfo': `${inner.url}/latest` }, '127.0.0.3');
  const r = await runCheck(node.url, { ...QUICK, paths: 'default', testOnlyPublicAddresses: ['127.0.0.3'], allowPrivateNetwork: true });
  assert.ok(inner.stats.connections > 0);
  assert.is(r.limits.network, 'every address allowed (--allow-private-network)');
});

t('a loopback start (local testing) may reach loopback, not link-local or private addresses', async () => {
  const inner = await secret('127.0.0.2');
  const targets = { '/nodeinfo': `${inner.url}/x`, '/resource/nodeinfo': 'http://169.254.169.254/', '/healthz': 'http://10.0.0.1/' };
  const node = await redirector(targets, '127.0.0.1');
  const r = await runCheck(node.url, { ...QUICK, paths: 'default' });
  assert.ok(inner.stats.connections > 0, 'loopback to loopback is allowed');
  const text = evidence(r);
  const rule = 'this check allows only public and loopback addresses (the checked URL is loopback)';
  assert.match(text, `169.254.169.254 is a link-local address (169.254.0.0/16, cloud metadata), and ${rule}`);
  assert.match(text, '10.0.0.1 is a private-network address (10.0.0.0/8)');
  assert.is(r.limits.network, 'public and loopback addresses (the checked URL is loopback)');
});

t('address classes: private, loopback, link-local, CGNAT, reserved and IPv6 forms of them are not public', () => {
  const cases = {
    '8.8.8.8': 'public',
    '93.184.216.34': 'public',
    '2606:4700:4700::1111': 'public',
    '[2a00:1450:4001::200e]': 'public',
    '127.0.0.1': 'loopback',
    '127.255.0.9': 'loopback',
    '::1': 'loopback',
    '[::1]': 'loopback',
    '10.1.2.3': 'private',
    '172.16.0.1': 'private',
    '172.31.255.255': 'private',
    '172.32.0.1': 'public',
    '192.168.1.1': 'private',
    'fd00:ec2::254': 'private',
    'fc00::1': 'private',
    '169.254.169.254': 'link-local',
    '169.254.1.1': 'link-local',
    'fe80::1%eth0': 'link-local',
    '100.64.0.1': 'shared',
    '100.100.100.200': 'shared',
    '100.128.0.1': 'public',
    '0.0.0.0': 'reserved',
    '0.1.2.3': 'reserved',
    '::': 'reserved',
    '224.0.0.1': 'reserved',
    '255.255.255.255': 'reserved',
    'ff02::1': 'reserved',
    '::ffff:127.0.0.1': 'loopback',
    '::ffff:7f00:1': 'loopback',
    '::ffff:a9fe:a9fe': 'link-local',
    '::ffff:8.8.8.8': 'public',
    '::127.0.0.1': 'loopback',
    '64:ff9b::a00:1': 'private',
    '2002:c0a8:101::1': 'private',
    '2002:808:808::1': 'public',
  };
  for (const [ip, cls] of Object.entries(cases)) assert.is(classifyAddress(ip).cls, cls, ip);
});

t('DNS: the lookup drops refused addresses and connects to an allowed one; none allowed -> refused (no rebinding)', async () => {
  const policy = await NetPolicy.forStart(new URL('http://127.0.0.3/'), { testOnlyPublicAddresses: ['127.0.0.3', '127.0.0.4'] });
  // A stand-in for dns.lookup that answers `list` for any host.
  const fake = (list) => /** @type {any} */ ((host, opts, cb) => cb(null, list));
  const look = (list, opts) => new Promise((ok) => policy.lookup(fake(list))('node.example', opts, (err, a, f) => ok({ err, a, f })));
  const mixed = [
    { address: '10.0.0.7', family: 4 },
    { address: '127.0.0.4', family: 4 },
  ];
  assert.equal((await look(mixed, { all: true })).a, [{ address: '127.0.0.4', family: 4 }]);
  assert.equal(await look(mixed, {}), { err: null, a: '127.0.0.4', f: 4 });
  const refused = await look([{ address: '169.254.169.254', family: 4 }], { all: true });
  assert.is(refused.err.code, 'EPONODE_ADDRESS_REFUSED');
  assert.match(refused.err.message, 'node.example resolves to 169.254.169.254, a link-local address');
});

t.run();
