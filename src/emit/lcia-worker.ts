// Worker thread of the EPD pages (src/emit/lcia-workers.ts): the LCIA results of one EPD document per message.
import { parentPort } from 'node:worker_threads';
import { readLciaResults, type LciaAt } from '../parse/lcia.js';
import type { InputFile } from '../read/inputs.js';
import { readInput } from '../read/zip.js';

parentPort!.on('message', (msg: { id: number; file: InputFile; at?: LciaAt }) => {
  readInput(msg.file)
    .then((bytes) => parentPort!.postMessage({ id: msg.id, results: readLciaResults(bytes, msg.at) }))
    .catch((e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) }));
});
