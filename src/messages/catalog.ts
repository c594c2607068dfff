/**
 * Every finding code po-node reports: its default severity, what it means, how to fix it, and the text of its
 * messages. Findings carry a code and parameters; the English text is rendered here and nowhere else, and
 * docs/rules.md's tables are generated from this file (`npm run docs:rules`). A leaf: it imports only types.
 */
import type { Params, Severity } from '../findings.js';

/** Which table of docs/rules.md documents the code. */
export type Section = 'input' | 'other' | 'rules';

/** One way a code's message is worded; `p` holds the finding's parameters. */
type Form = (p: never) => string;

export interface CodeEntry {
  severity: Severity;
  /** The severity column when it depends on the case (e.g. "warning (missing) / error (malformed)"). */
  severityDoc?: string;
  section: Section;
  /** What the code checks, one line (docs/rules.md "checks"). */
  meaning: string;
  fix: string;
  /** Level 4 only: where the requirement comes from, and a failing example. */
  source?: string;
  example?: string;
  /** The message forms by case; a code with one form names it `default`. */
  text: Record<string, Form>;
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1);
const quoted = (l: readonly string[]) => l.map((v) => `"${v}"`).join(', ');
const EXAMPLE_UUID = '2eb43850-0ab2-4068-afe5-218d69a096f8';
const size = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(1)} MB`);
const count = (n: number) => n.toLocaleString('en');
/** A host-limit message: the host, what is over, the remedy, where the limit is documented. */
const host = (p: { host: string; source: string }, text: string) => `${p.host}: ${text} (limits: ${p.source})`;
/** The per-EPD ZIP exports are most of a large site: say what dropping them saves, when there are any, then the remedy. */
const dropZips = (zipExports: number, what: string, remedy: string) =>
  zipExports
    ? ` Build without --zip-export ("zipExport": false, the default) to drop the per-EPD ZIP exports (${what}), or ${remedy}`
    : ` ${remedy[0]!.toUpperCase()}${remedy.slice(1)}`;
type HostParams = { host: string; source: string; limit: number };

export const MESSAGES = {
  // Levels 1 and 2, input handling (docs/rules.md order).
  'input-too-large': {
    severity: 'error',
    section: 'input',
    meaning: 'file over `limits.maxFileSizeMB` / `--max-file-size` (default 50 MB); not read',
    fix: 'raise the limit if the file is genuine',
    text: {
      unread: (p: { bytes: number; limit: number }) =>
        `The file is ${mb(p.bytes)} MB, over the ${mb(p.limit)} MB limit; it was not read. Raise limits.maxFileSizeMB in the config ` +
        '(or --max-file-size) if it is genuine.',
      read: (p: { bytes: number; limit: number }) => `The file is ${mb(p.bytes)} MB, over the ${mb(p.limit)} MB limit.`,
      entry: (p: { detail: string; limit: number }) => `The entry ${p.detail}, over the ${mb(p.limit)} MB limit; it was not read.`,
    },
  },
  'input-unreadable': {
    severity: 'error',
    section: 'input',
    meaning:
      "the file or folder cannot be read (permissions: the error code is named; a folder's files are then all unread), or it is " +
      'a FIFO, socket or device (also when named as an input)',
    fix: 'fix permissions or remove it',
    text: {
      file: (p: { code: string }) => `The file cannot be read (${p.code}); check its permissions.`,
      input: (p: { code: string }) => `The input cannot be accessed (${p.code}); it was not read: check its permissions and its folders'.`,
      folder: (p: { code: string }) => `The folder cannot be read (${p.code}); no file in it was read: check its permissions.`,
      special: (p: { kind: string }) => `It is ${p.kind}, not a regular file; it was not read: name the dataset file or its folder.`,
      'special-entry': () => 'Not a regular file (a FIFO, socket or device); it was not read: replace it with the dataset file.',
    },
  },
  'input-name-encoding': {
    severity: 'error',
    section: 'input',
    meaning: 'a file name that is not valid UTF-8 (shown with `\\xNN` for its bytes): not read',
    fix: 'rename the file',
    text: { default: () => 'The file name is not valid UTF-8; it was not read (paths and reports are UTF-8): rename it.' },
  },
  'input-hidden': {
    severity: 'info',
    section: 'input',
    meaning: 'a file or folder whose name starts with a dot: skipped',
    fix: 'none needed',
    text: { default: (p: { kind: 'file' | 'folder' }) => `Skipped: hidden ${p.kind} (the name starts with a dot).` },
  },
  'input-symlink': {
    severity: 'warning',
    section: 'input',
    meaning: 'symbolic link pointing outside the input folder, dangling, or to a folder or special file: not followed',
    fix: 'copy the target into the input folder (or name the folder as an input)',
    text: {
      outside: (p: { target: string }) => `Symbolic link not followed: it points outside the input folder (to ${p.target}).`,
      dangling: () => 'Symbolic link not followed: its target does not exist.',
      folder: () => 'Symbolic link to a folder not followed: name the folder itself as an input.',
      special: (p: { kind: string }) => `Symbolic link not followed: it points to ${p.kind}, not a regular file.`,
    },
  },
  'input-not-xml': {
    severity: 'info',
    section: 'input',
    meaning: 'non-`.xml` file outside `external_docs/`: skipped',
    fix: 'none needed',
    text: { default: () => 'Skipped: not an XML file (only .xml datasets are read).' },
  },
  'input-not-dataset': {
    severity: 'info',
    section: 'input',
    meaning: 'ILCD category system: skipped',
    fix: 'none needed',
    text: { default: () => 'Skipped: an ILCD category system, not a dataset.' },
  },
  'input-uuid-mismatch': {
    severity: 'warning',
    section: 'input',
    meaning: 'soda4LCA-style file name `<uuid>_<version>.xml` names another UUID than the content',
    fix: 'rename the file',
    text: {
      default: (p: { named: string; uuid: string }) =>
        `The file name says UUID ${p.named} but the dataset's common:UUID is ${p.uuid}; it is published under ${p.uuid}. ` +
        'Rename the file to avoid confusion.',
    },
  },
  'xml-empty': {
    severity: 'error',
    section: 'input',
    meaning: '0-byte or white-space-only file',
    fix: 'export again',
    text: {
      empty: () => 'The file is empty (0 bytes); export the dataset again.',
      'white-space': () => 'The file holds only white space; export the dataset again.',
    },
  },
  'xml-encoding': {
    severity: 'error',
    section: 'input',
    meaning: 'UTF-16/32, invalid UTF-8, or a declared non-UTF-8 encoding',
    fix: 're-save as UTF-8',
    text: {
      utf16: () => 'The file is UTF-16 (or UTF-32) encoded; ILCD nodes serve UTF-8: re-save it as UTF-8.',
      invalid: (p: { offset: number }) => `The file is not valid UTF-8 (first bad byte at offset ${p.offset}); re-save it as UTF-8.`,
      declared: (p: { encoding: string }) =>
        `The XML declaration says encoding="${p.encoding}"; only UTF-8 is accepted: re-save the file as UTF-8 and fix the declaration.`,
    },
  },
  'xml-doctype': {
    severity: 'error',
    section: 'input',
    meaning: 'any DOCTYPE (billion laughs, external entities such as `file:///etc/passwd`): refused before parsing',
    fix: 'remove the DOCTYPE',
    text: {
      default: () => 'The file declares a DOCTYPE; DTDs are refused for safety and ILCD does not use them: remove the DOCTYPE.',
      entities: () =>
        'The file declares a DOCTYPE with entities; entity declarations are refused (entity expansion and external entities are ' +
        'unsafe): remove the DOCTYPE.',
    },
  },
  'xml-malformed': {
    severity: 'error',
    section: 'input',
    meaning: 'not well-formed, at every level (line/column of the fault)',
    fix: 'fix the XML',
    text: {
      default: (p: { detail: string }) => `The XML is not well-formed: ${p.detail}.`,
      // The parser's own message (fast-xml-parser) ends without a full stop of ours.
      parser: (p: { detail: string }) => `The XML is not well-formed: ${p.detail}`,
    },
  },
  'xml-limit': {
    severity: 'error',
    section: 'input',
    meaning: 'over a [limit on one document](#limits-on-one-document): attributes on an element, depth, nodes, length of a text or tag',
    fix: 'fix the file, or raise the limit if it is genuine',
    text: {
      default: (p: { detail: string }) =>
        `The document was not read: ${p.detail}, beyond what a dataset needs and what can be parsed in bounded memory. ` +
        'Raise the limit in the config if it is genuine.',
    },
  },
  'index-too-large': {
    severity: 'error',
    section: 'input',
    meaning: 'index fields over `limits.maxIndexKB`',
    fix: 'fix the oversized field',
    text: {
      default: (p: { bytes: number; limitKB: number }) =>
        `The index fields of this dataset (names, classifications, comments, references) hold ${(p.bytes / 1024).toFixed(0)} KB, ` +
        `over the ${p.limitKB} KB limit: a field carries an oversized value. Not published; raise limits.maxIndexKB if it is genuine.`,
    },
  },
  'ilcd-root': {
    severity: 'error',
    section: 'input',
    meaning: 'root is not an ILCD dataset po-node publishes (wrong root, not ILCD)',
    fix: '—',
    text: {
      'ilcd-other': (p: { root: string }) =>
        `Unknown root element ${p.root}: it is an ILCD document but not a dataset po-node publishes (process, flow, flow property, ` +
        'unit group, contact, source, LCIA method).',
      'not-ilcd': (p: { root: string }) =>
        `Unknown root element ${p.root}: it is not an ILCD dataset: the root must be e.g. processDataSet in namespace ` +
        'http://lca.jrc.it/ILCD/Process.',
    },
  },
  'ilcd-uuid': {
    severity: 'error',
    section: 'input',
    meaning: '`common:UUID` missing or not 8-4-4-4-12 hex (so `../`, `/`, `%2f` never reach a path)',
    fix: 'write a valid UUID',
    text: {
      missing: () => 'The dataset has no UUID; add common:UUID to dataSetInformation.',
      invalid: (p: { value: string }) =>
        `The UUID "${p.value}" is not a UUID (expected 8-4-4-4-12 hexadecimal digits, e.g. ${EXAMPLE_UUID}).`,
    },
  },
  'ilcd-version': {
    severity: 'error',
    section: 'input',
    meaning: '`common:dataSetVersion` missing or not `NN.NN[.NNN]`',
    fix: 'e.g. `01.00.000`',
    text: {
      missing: () => 'The dataset has no version; add common:dataSetVersion (e.g. 01.00.000) to publicationAndOwnership.',
      invalid: (p: { value: string }) => `The dataset version "${p.value}" does not match the ILCD pattern NN.NN.NNN (e.g. 01.00.000).`,
    },
  },
  'process-name': {
    severity: 'error',
    section: 'input',
    meaning: 'process without `name/baseName`',
    fix: 'add a name',
    text: { default: () => 'The process has no name; add at least one name/baseName (in English: xml:lang="en").' },
  },
  'process-not-epd': {
    severity: 'warning',
    section: 'input',
    meaning: 'process whose `typeOfDataSet` is not `EPD`: served, not listed',
    fix: '—',
    text: {
      default: (p: { typeOfDataSet: string; uuid: string }) =>
        `Not listed: typeOfDataSet is "${p.typeOfDataSet}", not "EPD". The dataset is still served at resource/processes/${p.uuid} ` +
        'for clients that reference it.',
    },
  },
  'dataset-duplicate': {
    severity: 'info',
    severityDoc: 'info/warning',
    section: 'input',
    meaning: 'same UUID in several files: newest version (then first path) wins; warning for EPDs with differing content',
    fix: 'raise the version of the changed file',
    text: {
      identical: (p: { published: string; uuid: string; version: string }) =>
        `Identical copy of ${p.published} (UUID ${p.uuid}, version ${p.version}); published once.`,
      changed: (p: { published: string; uuid: string; version: string }) =>
        `Same UUID ${p.uuid} and version ${p.version} as ${p.published} but different content; ${p.published} is published. ` +
        'Raise the dataSetVersion of the changed file.',
      superseded: (p: { published: string; uuid: string; version: string; newer: string }) =>
        `UUID ${p.uuid} version ${p.version} is superseded by version ${p.newer} in ${p.published}, which is published.`,
    },
  },
  'config-base-url': {
    severity: 'warning',
    section: 'input',
    meaning: 'no base URL configured',
    fix: 'set `baseUrl`',
    text: {
      default: () =>
        'No base URL set: links in the lists and nodeinfo are root-relative (/resource/...). Set --base-url or "baseUrl" to the ' +
        'public URL before registering the node with ECO Platform.',
    },
  },
  'host-limit': {
    severity: 'warning',
    section: 'input',
    meaning:
      'with `--host`: the built site is over a limit of that host (GitHub Pages 1 GB, Cloudflare Pages 20,000 files / 25 MiB per ' +
      'file, Netlify 54,000 files per folder; [hosting.md](hosting.md#host-limits))',
    fix: 'a build without `--zip-export`, another plan, or S3 + CloudFront, as the message says',
    text: {
      'site-bytes': (p: HostParams & { bytes: number; zipExports: number; zipExportBytes: number }) =>
        host(
          p,
          `the site is ${size(p.bytes)} as published, over the ${size(p.limit)} limit; the deployment may be refused.` +
            dropZips(p.zipExports, `${size(p.zipExportBytes)} of it`, 'publish to S3 + CloudFront (no site size limit).'),
        ),
      files: (p: HostParams & { files: number; zipExports: number }) =>
        host(
          p,
          `the site has ${count(p.files)} files, over the ${count(p.limit)} a site may have (Free plan); the upload will fail.` +
            dropZips(p.zipExports, `${count(p.zipExports)} files`, 'use a paid plan or S3 + CloudFront.'),
        ),
      'file-bytes': (p: HostParams & { path: string; bytes: number }) =>
        host(
          p,
          `${p.path} is ${size(p.bytes)}, over the ${size(p.limit)} a file may be; publish to S3 + CloudFront, or drop the file ` +
            'from the inputs.',
        ),
      'folder-entries': (p: HostParams & { path: string; entries: number }) =>
        host(
          p,
          `${p.path} holds ${count(p.entries)} entries, over the ${count(p.limit)} a folder may hold; deploys will fail. ` +
            'Publish to S3 + CloudFront or your own nginx/Apache.',
        ),
    },
  },

  // Archives, references, schema validation.
  'zip-too-large': {
    severity: 'error',
    section: 'other',
    meaning:
      'archive over `limits.maxZipSizeMB` (default 1024), or the entries of all archives of the build together over ' +
      '`limits.maxZipTotalSizeMB` (default 2048, declared sizes); no entry after that one is read',
    fix: 'raise the limit if the archive is genuine, or unpack it into a folder',
    text: {
      archive: (p: { bytes: number; limit: number }) =>
        `The archive is ${mb(p.bytes)} MB, over the ${mb(p.limit)} MB limit; it was not read. Raise limits.maxZipSizeMB if it is genuine.`,
      total: (p: { limit: number }) =>
        `ZIP contents of this build exceed ${mb(p.limit)} MB uncompressed (limits.maxZipTotalSizeMB); ` +
        'this entry and the rest were not read.',
    },
  },
  'zip-malformed': {
    severity: 'error',
    section: 'other',
    meaning: 'no readable central directory (ZIP64 is not supported)',
    fix: 're-export the archive or unpack it into a folder',
    text: { default: (p: { detail: string }) => `Not a readable ZIP archive (${p.detail}); re-export it or unpack it into a folder.` },
  },
  'zip-entry-unsafe': {
    severity: 'error',
    section: 'other',
    meaning: 'entry name with `..` segments, absolute (`/x`, `C:/x`), backslashes, control characters',
    fix: 're-export with relative paths',
    text: {
      default: (p: { reason: string }) =>
        `Entry refused: its name ${p.reason}; an ILCD export only holds relative paths such as ILCD/processes/<uuid>.xml.`,
    },
  },
  'zip-entry-encrypted': {
    severity: 'error',
    section: 'other',
    meaning: 'encrypted entry (general-purpose flag bit 0 set)',
    fix: 'export without a password',
    text: { default: () => 'Entry refused: it is encrypted; export the data without a password.' },
  },
  'zip-entry-unsupported': {
    severity: 'error',
    section: 'other',
    meaning: 'compression other than stored/deflate',
    fix: 're-export with standard ZIP compression',
    text: {
      default: (p: { method: number }) =>
        `Entry refused: compression method ${p.method} is not supported (only stored and deflate); ` +
        're-export with standard ZIP compression.',
    },
  },
  'zip-entry-corrupt': {
    severity: 'error',
    section: 'other',
    meaning: 'the data inflates to more (or less) than the declared size, or a stored entry with inconsistent sizes',
    fix: 're-export the archive',
    text: {
      default: (p: { detail: string }) => `Entry refused: ${p.detail}.`,
      stored: () => 'Entry refused: a stored entry with inconsistent sizes.',
    },
  },
  'zip-entry-too-large': {
    severity: 'error',
    section: 'other',
    meaning: 'an entry over `limits.maxZipEntrySizeMB` (default 256)',
    fix: 'raise the limit if the entry is genuine',
    text: {
      default: (p: { bytes: number; limit: number }) => `Entry refused: it unpacks to ${mb(p.bytes)} MB, over the ${mb(p.limit)} MB limit.`,
    },
  },
  'zip-entry-ratio': {
    severity: 'error',
    section: 'other',
    meaning: 'an entry over 1 MB unpacking to more than `limits.maxZipRatio` (default 200) times its compressed size',
    fix: 'raise the limit if the entry is genuine',
    text: {
      default: (p: { ratio: number; limit: number }) =>
        `Entry refused: it unpacks ${p.ratio} times its compressed size (limit ${p.limit}), which is how zip bombs look.`,
    },
  },
  'reference-missing': {
    severity: 'warning',
    severityDoc: 'warning (error with `--require-dependencies`)',
    section: 'other',
    meaning: 'a referenced dataset or digital file is not in the input (docs/dependencies.md)',
    fix: 'export the EPD with its dependencies, or correct the reference',
    text: {
      dataset: (p: { type: string; uuid: string; folder: string }) =>
        `Referenced ${p.type || 'dataset'} ${p.uuid} is not in the input, so /resource/${p.folder}/${p.uuid} answers 404; add it ` +
        '(export the EPD with its dependencies) or correct the reference.',
      'digital-file': (p: { uri: string }) =>
        `The digital file "${p.uri}" is not in the input's external_docs folder; clients following /resource/sources/<uuid>/<file> ` +
        'get 404. Add the file to external_docs or correct the @uri.',
    },
  },
  'document-unreferenced': {
    severity: 'info',
    section: 'other',
    meaning: 'a file in `external_docs/` that no source dataset references: not published',
    fix: 'reference it from a source dataset, or remove it',
    text: { default: () => 'Not published: no source dataset references this file in referenceToDigitalFile/@uri.' },
  },
  'xsd-invalid': {
    severity: 'error',
    severityDoc: 'error (EPD) / warning (other datasets)',
    section: 'other',
    meaning: 'not valid against the ILCD(+EPD) schema of its type (see Level 3 below)',
    fix: 'fix the element libxml2 names',
    text: {
      default: (p: { schema: string; detail: string }) => `Not valid against the ILCD schema (${p.schema}): ${p.detail}`,
      unlocated: (p: { schema: string; detail: string }) =>
        `The dataset is not valid against ${p.schema} (libxml2: ${p.detail}); check it with xmllint --schema.`,
    },
  },
  'xsd-unavailable': {
    severity: 'warning',
    section: 'other',
    meaning: 'the schema validator could not run on a file',
    fix: 'check the file with `xmllint --schema`',
    text: {
      default: (p: { detail: string }) => `Schema validation could not run on this file (${p.detail}); check it with xmllint --schema.`,
    },
  },
  'xsd-timeout': {
    severity: 'error',
    section: 'other',
    meaning: 'XSD validation of the file did not finish within `limits.xsdTimeoutSeconds`',
    fix: 'check the file, or raise the limit if it is genuine',
    text: {
      default: (p: { seconds: number }) =>
        `XSD validation did not finish within ${p.seconds} s and was stopped; the file was rejected. libxml2 is slow on some shapes ` +
        '(such as elements with very many attributes): check the file, or raise limits.xsdTimeoutSeconds if it is genuine.',
    },
  },

  // Level 4: ECO data-definition rules (src/rules/, one module per rule).
  'eco-uuid': {
    severity: 'warning',
    section: 'rules',
    meaning: '`common:UUID` in lower case (format itself: `ilcd-uuid`)',
    source: 'DDR B.1.1; RFC 4122',
    example: '`2EB43850-0AB2-…`',
    fix: 'write it in lower case',
    text: {
      default: (p: { value: string; uuid: string }) =>
        `The UUID "${p.value}" has upper-case letters; it is published as ${p.uuid}: write it in lower case so links from other ` +
        'systems match.',
    },
  },
  'eco-version': {
    severity: 'warning',
    section: 'rules',
    meaning: 'version has three parts `NN.NN.NNN` (pattern itself: `ilcd-version`)',
    source: 'DDR C.3.2; ILCD Version type',
    example: '`00.01`',
    fix: '`00.01.000`',
    text: {
      default: (p: { version: string }) =>
        `The version "${p.version}" has no third part; write ${p.version}.000 so it sorts and compares like soda4LCA versions.`,
    },
  },
  'eco-publication-date': {
    severity: 'warning',
    severityDoc: 'warning (missing) / error (not `YYYY-MM-DD`)',
    section: 'rules',
    meaning: '`time/common:other/epd2:publicationDateOfEPD`',
    source: 'DDR B.10.5; EPD_Extensions_2019.xsd',
    example: '`10.10.2022`',
    fix: '`2022-10-10`',
    text: {
      missing: () => 'No publication date: add epd2:publicationDateOfEPD (YYYY-MM-DD) to time/common:other (ILCD+EPD format 1.2).',
      invalid: (p: { value: string }) =>
        `The publication date "${p.value}" is not a date of the form YYYY-MM-DD; the portal cannot sort or filter by it: correct it.`,
    },
  },
  'eco-valid-until': {
    severity: 'warning',
    severityDoc: 'warning (missing, expired) / error (not a year)',
    section: 'rules',
    meaning: '`time/common:dataSetValidUntil` is a 4-digit year not before the build year',
    source: 'DDR B.10.2; ILCD gYear',
    example: '`2030-12-31`; `2013`',
    fix: '`2030`; publish a current version',
    text: {
      missing: () => 'No validity: add common:dataSetValidUntil (the year the EPD expires, e.g. 2030) to processInformation/time.',
      invalid: (p: { value: string }) =>
        `dataSetValidUntil "${p.value}" is not a year; write the four-digit year the EPD expires (e.g. 2030), as the portal filters on it.`,
      expired: (p: { year: string }) =>
        `The EPD expired in ${p.year}; it is still published, but replace it with a current version or remove it.`,
    },
  },
  'eco-location': {
    severity: 'warning',
    section: 'rules',
    meaning: '`geography/locationOfOperationSupplyOrProduction/@location` present and an ILCD location code',
    source: 'DDR B.11.1.1; ILCDLocations',
    example: '`Germany`',
    fix: '`DE`, `RER`, `GLO`',
    text: {
      missing: () =>
        'No location: add geography/locationOfOperationSupplyOrProduction with @location, an ISO 3166 country code (e.g. DE) or a ' +
        'region code (RER for Europe, GLO for global).',
      invalid: (p: { value: string }) =>
        `The location "${p.value}" is not an ILCD location code; use an ISO 3166 country code (e.g. DE) or a region code (RER, GLO).`,
    },
  },
  'eco-subtype': {
    severity: 'warning',
    severityDoc: 'warning (missing) / error (unknown)',
    section: 'rules',
    meaning: '`epd:subType` one of specific/average/representative/template/generic dataset',
    source: 'DDR C.1.4; EPD_Extensions_2013.xsd',
    example: '`specific`',
    fix: '`specific dataset`',
    text: {
      missing: (p: { allowed: readonly string[] }) =>
        `No dataset specificity: add epd:subType to LCIMethodAndAllocation/common:other (one of ${quoted(p.allowed)}).`,
      invalid: (p: { value: string; allowed: readonly string[] }) =>
        `epd:subType "${p.value}" is not one of ${quoted(p.allowed)}; the portal cannot classify the EPD: correct the value.`,
    },
  },
  'eco-registration-number': {
    severity: 'warning',
    section: 'rules',
    meaning: '`common:registrationNumber` present unless subType is generic, representative or template',
    source: 'DDR D.4.6',
    example: '(absent in a specific EPD)',
    fix: "add the programme operator's number",
    text: {
      default: () =>
        "No registration number: add common:registrationNumber (the programme operator's EPD number, e.g. EPD-IBU-2022-001) to " +
        'publicationAndOwnership.',
    },
  },
  'eco-compliance': {
    severity: 'warning',
    section: 'rules',
    meaning:
      'a compliance declaration references EN 15804+A1 `b00f9ec0-7874-11e3-981f-0800200c9a66` or +A2 ' +
      '`c0016b33-8cf7-415c-ac6e-deba0d21440d` / `d4aa3ec7-b1d7-4a4a-a6cb-37af88dcc902`',
    source: 'product.md level 4; InData Common_references.csv',
    example: 'only ISO 14025 declared',
    fix: 'add the EN 15804 compliance reference',
    text: {
      default: (p: { found: readonly string[] }) =>
        `No compliance with EN 15804 is declared${p.found.length ? ` (found: ${p.found.join('; ')})` : ''}; add a compliance ` +
        'declaration referencing EN 15804+A2 (c0016b33-8cf7-415c-ac6e-deba0d21440d) or +A1 (b00f9ec0-7874-11e3-981f-0800200c9a66).',
    },
  },
  'eco-reference-flow': {
    severity: 'error',
    severityDoc: 'error (missing/dangling/no flow) / warning (no amount)',
    section: 'rules',
    meaning:
      '`quantitativeReference/referenceToReferenceFlow` names an existing `exchange` with `referenceToFlowDataSet` and a numeric ' +
      '`meanAmount`',
    source: 'DDR B.9.2; ilcd-epd-format.md §5',
    example: '`<referenceToReferenceFlow>999</…>` with no exchange 999',
    fix: 'point it at the product exchange',
    text: {
      missing: () =>
        'No reference flow: add quantitativeReference/referenceToReferenceFlow with the dataSetInternalID of the exchange holding ' +
        'the declared unit; without it the declared unit cannot be shown.',
      dangling: (p: { id: string }) =>
        `The reference flow points to exchange ${p.id}, but no exchange has dataSetInternalID="${p.id}"; point it at the exchange ` +
        'of the declared product.',
      'no-flow': (p: { id: string }) =>
        `The reference exchange ${p.id} does not reference a product flow; add referenceToFlowDataSet with the flow's refObjectId ` +
        '(the flow carries the declared unit).',
      'no-amount': (p: { id: string }) =>
        `The reference exchange ${p.id} has no numeric meanAmount; give the quantity of the declared unit (usually 1).`,
    },
  },
  'eco-classification': {
    severity: 'warning',
    section: 'rules',
    meaning: 'at least one `common:classification` with a class',
    source: 'DDR (Freeclass); ECO mandatory classification',
    example: 'no `classificationInformation`',
    fix: 'add a classification (Freeclass recommended)',
    text: {
      default: () =>
        'No classification: add classificationInformation/common:classification with its common:class entries (ECO Platform asks ' +
        'for a Freeclass classification next to national ones) so the EPD can be found by category.',
    },
  },
  'eco-lcia-modules': {
    severity: 'warning',
    section: 'rules',
    meaning: 'LCIA results have `epd:amount` with `epd:module` from A1…D',
    source: 'product.md level 4; DDR F.1.1; Technical Details guide',
    example: '`epd:module="A1-3"`; no amounts',
    fix: 'use `A1-A3`; add per-module amounts',
    text: {
      'no-amounts': () =>
        'The LCIA results have no per-module values; add epd:amount elements with epd:module (e.g. A1-A3, C4, D) to each ' +
        "LCIAResult's common:other.",
      'no-results': () => 'No LCIA results: add LCIAResults with one LCIAResult per impact indicator and epd:amount values per module.',
      'unknown-modules': (p: { modules: readonly string[]; allowed: readonly string[] }) =>
        `Module codes not in the ILCD+EPD list: ${p.modules.join(', ')}; use ${p.allowed.join(', ')}.`,
    },
  },
  'eco-name-en': {
    severity: 'warning',
    section: 'rules',
    meaning: 'a `name/baseName` in English (`xml:lang="en"` or none)',
    source: 'ECO Portal search; ILCD default language',
    example: 'only `xml:lang="de"`',
    fix: 'add an English baseName',
    text: {
      default: (p: { languages: readonly string[] }) =>
        `No English name (found: ${p.languages.join(', ')}); add name/baseName with xml:lang="en" so the EPD can be found on the ` +
        'ECO Portal.',
    },
  },
} as const satisfies Record<string, CodeEntry>;

export type Code = keyof typeof MESSAGES;
type Forms<C extends Code> = (typeof MESSAGES)[C]['text'];
type ArgOf<F> = F extends (p: infer P) => string ? (unknown extends P ? object : P) : never;

/** A code's parameters: those of one of its forms, plus `case` naming the form unless it is `default`. */
export type ParamsOf<C extends Code> = {
  [K in keyof Forms<C>]: (K extends 'default' ? { case?: undefined } : { case: K }) & ArgOf<Forms<C>[K]>;
}[keyof Forms<C>];

/** `ParamsOf` for each code of a union: a rule's hits are typed by its code. */
export type ParamsFor<C extends Code> = C extends Code ? ParamsOf<C> : never;

/** The codes of the level-4 rules (src/rules/). */
export type RuleCode = { [C in Code]: (typeof MESSAGES)[C]['section'] extends 'rules' ? C : never }[Code];

/**
 * The one place a finding's text is written: its code's form for `params.case` (else `default`) applied to `params`.
 * `case: 'crash'` is shared by every level-4 rule: the rule threw (src/rules/index.ts).
 */
export function render(code: string, params: Params): string {
  if (params.case === 'crash') {
    return `Rule ${code} could not run on this file (${String(params.detail)}); please report this as a po-node bug.`;
  }
  const entry = (MESSAGES as Record<string, CodeEntry>)[code];
  const form = entry?.text[typeof params.case === 'string' ? params.case : 'default'] as ((p: Params) => string) | undefined;
  if (!form) throw new Error(`No message for ${code}${params.case ? ` (${String(params.case)})` : ''}`);
  return form(params);
}
