import { Readable } from 'node:stream';
import createDebug from 'debug';
import type { Row } from '../../driver-adapter';
import { stringifyJson } from './serialize';

const log = createDebug('sql-resources:http');

/** Rows are sent in chunks of about this many characters. */
const streamChunkSize = 16 * 1024;

/** The success envelope of a long list, written as batches arrive; `total` comes after `data`. */
async function* listEnvelope(message: string, readBatches: Row[][], moreBatches: AsyncGenerator<Row[], void, undefined>): AsyncGenerator<string> {
  let chunk = `{"code":"ok","message":${JSON.stringify(message)},"data":[`;
  let total = 0;
  const append = (batch: Row[]): void => {
    for (const row of batch) chunk += (total++ === 0 ? '' : ',') + stringifyJson(row);
  };
  for (const batch of readBatches) append(batch);
  yield chunk;
  chunk = '';
  try {
    for await (const batch of moreBatches) {
      append(batch);
      if (chunk.length >= streamChunkSize) {
        yield chunk;
        chunk = '';
      }
    }
  } catch (error) {
    // Headers are sent: the client can only see the connection cut, so say why here.
    log('list failed after %d rows: %s', total, (error as Error).message);
    throw error;
  }
  yield `${chunk}],"total":${total}}`;
}

/**
 * The list's body stream. However it ends (sent, client gone, failure), its batches are closed:
 * a client that leaves before the envelope's loop starts makes fastify destroy the stream
 * before the generator's first step, and a generator closed there never reaches the loop that
 * would close the batches, which keeps the query's pool connection and leaves `stop()` waiting.
 */
export function listBody(message: string, readBatches: Row[][], moreBatches: AsyncGenerator<Row[], void, undefined>): Readable {
  const body = Readable.from(listEnvelope(message, readBatches, moreBatches));
  body.once('close', () => void moreBatches.return(undefined).catch(() => undefined));
  return body;
}
