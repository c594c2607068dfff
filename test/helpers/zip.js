// Build ZIP inputs inside tests (fflate), so no binary fixtures are needed.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { zipSync } from 'fflate';

/** Every file below dir as { 'a/b': bytes }. */
export function filesOf(dir) {
  /** @type {Record<string, Uint8Array>} */
  const out = {};
  const walk = (d) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p).split(sep).join('/')] = readFileSync(p);
    }
  };
  walk(dir);
  return out;
}

/** Zip each subfolder of src (an ILCD export with its ILCD/ folder) into dest/<name>.zip. */
export function zipExports(src, dest) {
  for (const name of readdirSync(src).sort()) {
    if (!statSync(join(src, name)).isDirectory()) continue;
    writeFileSync(join(dest, `${name}.zip`), zipSync(filesOf(join(src, name))));
  }
}

/** Set general-purpose flag bits of the named entry in both its local and central headers. */
export function setEntryFlags(zip, name, bits) {
  const buf = Buffer.from(zip);
  const n = Buffer.from(name);
  for (let i = 0; i + 4 <= buf.length; i++) {
    const sig = buf.readUInt32LE(i);
    if (sig === 0x04034b50 && buf.subarray(i + 30, i + 30 + n.length).equals(n)) buf.writeUInt16LE(buf.readUInt16LE(i + 6) | bits, i + 6);
    if (sig === 0x02014b50 && buf.subarray(i + 46, i + 46 + n.length).equals(n)) buf.writeUInt16LE(buf.readUInt16LE(i + 8) | bits, i + 8);
  }
  return buf;
}
