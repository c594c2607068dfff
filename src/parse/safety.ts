import { isUtf8 } from 'node:buffer';
import type { Finding } from '../findings.js';
import { finding } from '../messages/finding.js';

export type DecodeResult = { ok: true; text: string } | { ok: false; finding: Omit<Finding, 'file'> };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Level 1 safety before any parser sees the bytes: UTF-8 only (BOM tolerated), no DOCTYPE.
 * A DOCTYPE is the only place entities can be declared, so refusing it rules out entity
 * expansion bombs and external entities without trusting the parser's own limits.
 */
export function decodeXml(bytes: Uint8Array): DecodeResult {
  if (bytes.length === 0) return fail(finding('xml-empty', { case: 'empty' }));
  const b0 = bytes[0],
    b1 = bytes[1];
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff) || (bytes.length > 1 && (b0 === 0 || b1 === 0))) {
    return fail(finding('xml-encoding', { case: 'utf16' }));
  }
  let text: string;
  try {
    text = utf8.decode(bytes); // strips a UTF-8 BOM
  } catch {
    const at = firstInvalidUtf8(bytes);
    return fail(finding('xml-encoding', { case: 'invalid', offset: at }), lineOfOffset(bytes, at));
  }
  if (text.trim() === '') return fail(finding('xml-empty', { case: 'white-space' }));
  const decl = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(text);
  if (decl && !/^utf-?8$/i.test(decl[1]!)) {
    return fail(finding('xml-encoding', { case: 'declared', encoding: decl[1]! }), 1);
  }
  const doctype = findDoctype(text);
  if (doctype >= 0) {
    const internal = /<!ENTITY/i.test(text.slice(doctype, doctype + 65536));
    return fail(finding('xml-doctype', internal ? { case: 'entities' } : {}), lineOf(text, doctype));
  }
  return { ok: true, text };
}

/**
 * The bytes of a document as a one-byte (latin1) string: each char is one byte, so markup (ASCII) reads as in the
 * decoded text and offsets are byte offsets. The scanners run on it without decoding (0.02 ms instead of 0.2-0.7 ms
 * per EPD); only the parts whose values are read are decoded (`decode`). Undefined when decodeXml would say
 * anything but ok, or might (not UTF-8, a UTF-16 or white-space-only document, another declared encoding, a
 * DOCTYPE), or where checkWellFormed refuses a character (U+FFFE/U+FFFF, C0 controls): the caller then takes
 * decodeXml's path, so findings stay the same.
 */
export interface ByteView {
  /** latin1 view of the bytes after a UTF-8 BOM. */
  text: string;
  /** The bytes after the BOM. */
  bytes: Buffer;
  /** The decoded text of [from, to) (byte offsets of the view). */
  decode(from?: number, to?: number): string;
}

/**
 * A document's text, made by `make` when first asked for (decoding costs; most documents never need it). A class,
 * so the getter is on its prototype: an object literal with a getter has a hidden class of its own, made in old space,
 * and that kept every document (through the getter's closure) alive through the young-generation GCs until a full
 * one (docs/performance.md). Add the other fields with Object.assign.
 */
export class LazyText {
  constructor(private readonly make: () => string) {}
  get text(): string {
    return this.make();
  }
}

export function viewXml(input: Uint8Array): ByteView | undefined {
  const all = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (all.length < 2 || all[0] === 0 || all[1] === 0 || all[0] === 0xff || all[0] === 0xfe || !isUtf8(all)) return undefined;
  const bytes = all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf ? all.subarray(3) : all;
  // U+FFFE and U+FFFF, the only non-ASCII characters checkWellFormed refuses.
  if (bytes.indexOf(NON_CHARS[0]!) >= 0 || bytes.indexOf(NON_CHARS[1]!) >= 0) return undefined;
  // And the control characters it refuses: the decoded text's check reports where. One search per byte value, each a
  // native memchr: 0.04 ms for an 80 kB EPD, against 0.12 for the regular expression over the view.
  for (const c of CONTROL_BYTES) if (bytes.indexOf(c) >= 0) return undefined;
  const text = bytes.toString('latin1');
  // No markup or only white space: decodeXml tells empty documents apart (Unicode white space included).
  if (text.indexOf('<') < 0) return undefined;
  const decl = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(text);
  if ((decl && !/^utf-?8$/i.test(decl[1]!)) || findDoctype(text) >= 0) return undefined;
  return { text, bytes, decode: (from = 0, to = bytes.length) => bytes.toString('utf8', from, to) };
}

const NON_CHARS = [Buffer.from([0xef, 0xbf, 0xbe]), Buffer.from([0xef, 0xbf, 0xbf])];
/** C0 controls but tab, line feed and carriage return: not allowed anywhere in an XML 1.0 document. */
const CONTROL_BYTES = [...Array(32).keys()].filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d);

/** A string of the view as text: latin1 chars of a multi-byte sequence decoded (ASCII strings stay as they are). */
export function fromLatin1(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[^\u0000-\u007f]/.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** Offset of `<!DOCTYPE` in the prolog (before the root element), or -1. Comments and PIs are skipped. */
function findDoctype(text: string): number {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return -1;
    if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) return -1;
      i = end + 2;
    } else if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end < 0) return -1;
      i = end + 3;
    } else if (text.slice(lt, lt + 9).toUpperCase() === '<!DOCTYPE') {
      return lt;
    } else {
      return -1; // root element reached
    }
  }
  return -1;
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let lo = 0, hi = bytes.length; ;) {
    // Binary search on the shortest prefix that fails to decode.
    if (hi - lo <= 1) return lo;
    const mid = (lo + hi) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid;
    }
  }
}

function lineOfOffset(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function fail(f: Finding, line?: number): DecodeResult {
  return { ok: false, finding: { ...f, ...(line ? { line } : {}) } };
}
