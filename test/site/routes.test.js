// The URL layout is one table (src/site/routes.ts): every file a build writes belongs to exactly one route, every
// route of the example has its file, and `serve` answers each route with the route's content type.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteServer } from '../../dist/index.js';
import { siblingOf } from '../../dist/emit/precompress.js';
import { BY_EXTENSION, documentContentType, PAGES_DIR, ROUTES } from '../../dist/site/routes.js';
import { httpGet } from '../helpers/http.js';
import { buildExample, cleanup, tree } from '../helpers/index.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A route's file or URL as a regular expression: {uuid} a UUID, {name} one path segment. */
const pattern = (s) =>
  new RegExp(
    `^${s
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{uuid\}/g, `(${UUID})`)
      .replace(/\{name\}/g, '([^/]+)')}$`,
  );
/** Not routes of their own: the build's marker, and the pre-paged lists the list route answers by query. */
const NOT_ROUTED = [/^\.po-node\.json$/, new RegExp(`^${PAGES_DIR}/\\d+/\\d+\\.(xml|json)$`)];
/** The example exports no LCIA method datasets: their list and dataset routes have no file there. */
const ABSENT_IN_EXAMPLE = new Set(['list:lciamethods', 'dataset:lciamethods']);

let site;
test.before(async () => {
  site = await buildExample({ xsd: false, zipExport: true });
});
test.after(() => cleanup());

test('ids and URLs are unique', () => {
  assert.is(new Set(ROUTES.map((r) => r.id)).size, ROUTES.length);
  assert.is(new Set(ROUTES.map((r) => r.url)).size, ROUTES.length);
});

test('every file of a built site belongs to exactly one route, and every route has a file', () => {
  const files = Object.keys(tree(site.out));
  const used = new Set();
  // A precompressed copy (`<document>.gz`, `.br`) answers its document's URL: it belongs where the document does.
  for (const f of files.map((x) => siblingOf(x)?.doc ?? x)) {
    if (NOT_ROUTED.some((re) => re.test(f))) continue;
    const owners = ROUTES.filter((r) => r.files.some((x) => pattern(x.file).test(f)));
    assert.is(owners.length, 1, `${f}: routes ${owners.map((r) => r.id).join(', ') || 'none'}`);
    used.add(owners[0].id);
  }
  const missing = ROUTES.filter((r) => !used.has(r.id)).map((r) => r.id);
  assert.equal(missing.sort(), [...ABSENT_IN_EXAMPLE].sort());
});

test("serve answers every route of the example with its file and the route's content type", async () => {
  const files = Object.keys(tree(site.out));
  const srv = createSiteServer(site.out, { port: 0 });
  const { port } = await srv.listen();
  try {
    for (const r of ROUTES.filter((x) => !ABSENT_IN_EXAMPLE.has(x.id))) {
      for (const { file, type, format } of r.files) {
        // One real file of the route gives the values of its placeholders, and so the URL to ask for.
        const real = files.find((f) => pattern(file).test(f));
        const values = pattern(file).exec(real).slice(1);
        let k = 0;
        const url = r.url.replace(/\{uuid\}|\{name\}/g, () => values[k++]) + (format === 'json' ? '?format=json' : '');
        const res = await httpGet(port, url);
        assert.is(res.status, 200, `${r.id} ${url}`);
        const want = type === BY_EXTENSION ? documentContentType(real) : type;
        assert.is(res.headers['content-type'], want, `${r.id} ${url}`);
      }
    }
  } finally {
    await srv.close();
  }
});

test.run();
