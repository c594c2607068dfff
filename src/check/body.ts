import type { IncomingMessage } from 'node:http';
import { pipeline, Writable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** The body grew over the cap: reading stopped there and the connection was closed. */
export class BodyTooLarge extends Error {
  readonly code = 'EPONODE_BODY_CAP';
}

/** The decoders for the Content-Encodings `check` accepts (sent as Accept-Encoding). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

function decoderFor(encoding: string): Transform | null | undefined {
  if (encoding === '' || encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/**
 * Read a response body, decoded, holding at most `cap` bytes: the cap counts the decoded bytes as they
 * arrive (a 1 MB gzip body inflating to 1 GB stops at the cap), and at the cap every stream of the pipeline,
 * the socket included, is destroyed. A Content-Length over the cap is refused before anything is read.
 */
export function readCapped(res: IncomingMessage, cap: number): Promise<Uint8Array> {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder = decoderFor(encoding);
  const mb = (cap / 1024 / 1024).toFixed(0);
  if (decoder === undefined) {
    res.destroy();
    return Promise.reject(new Error(`unsupported Content-Encoding "${encoding}" (accepted: ${ACCEPT_ENCODING})`));
  }
  const declared = Number(res.headers['content-length']);
  if (!decoder && Number.isFinite(declared) && declared > cap) {
    res.destroy();
    return Promise.reject(new BodyTooLarge(`Content-Length ${declared} is over the ${mb} MB body cap (--max-body-mb); not read`));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      size += chunk.length;
      const counted = decoder ? `, counted after ${encoding} decoding` : '';
      if (size > cap) return done(new BodyTooLarge(`body over the ${mb} MB cap (--max-body-mb${counted}); reading stopped there`));
      chunks.push(chunk);
      done();
    },
  });
  return new Promise((ok, ko) => {
    const done = (err: NodeJS.ErrnoException | null | undefined) => {
      if (!err) return ok(Buffer.concat(chunks, size));
      ko(err.code?.startsWith('Z_') ? new Error(`the ${encoding} body could not be decoded (${err.message})`) : err);
    };
    if (decoder) pipeline(res, decoder, sink, done);
    else pipeline(res, sink, done);
  });
}
