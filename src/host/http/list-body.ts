import { Readable } from 'node:stream';
import createDebug from 'debug';
import type { Row } from '../../driver-adapter';
import { stringifyJson } from './serialize';

const log = createDebug('sql-resources:http');

/** Rows are sent in chunks of about this many characters. */
const streamChunkSize = 16 * 1024;

/**
 * Calls `stalled` when the reader of a generator has not asked for its next value within
 * `timeoutMs` of the last one: `pending()` around each `yield`. Time spent producing a value
 * (the database reading the next batch) does not count; only a client that takes no more does.
 */
function stallWatch(timeoutMs: number, stalled: () => void): { pending(): void; resumed(): void } {
  let timer: NodeJS.Timeout | undefined;
  if (timeoutMs === 0) return { pending: () => undefined, resumed: () => undefined };
  return {
    pending: () => {
      timer = setTimeout(stalled, timeoutMs);
      timer.unref();
    },
    resumed: () => clearTimeout(timer),
  };
}

/** The success envelope of a long list, written as batches arrive; `total` comes after `data`. */
async function* listEnvelope(
  message: string,
  readBatches: Row[][],
  moreBatches: AsyncGenerator<Row[], void, undefined>,
  watch: ReturnType<typeof stallWatch>,
): AsyncGenerator<string> {
  let chunk = `{"code":"ok","message":${JSON.stringify(message)},"data":[`;
  let total = 0;
  const append = (batch: Row[]): void => {
    for (const row of batch) chunk += (total++ === 0 ? '' : ',') + stringifyJson(row);
  };
  for (const batch of readBatches) append(batch);
  watch.pending();
  yield chunk;
  watch.resumed();
  chunk = '';
  try {
    for await (const batch of moreBatches) {
      append(batch);
      if (chunk.length >= streamChunkSize) {
        watch.pending();
        yield chunk;
        watch.resumed();
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
export function listBody(
  message: string,
  readBatches: Row[][],
  moreBatches: AsyncGenerator<Row[], void, undefined>,
  writeTimeout: number,
  stalled: () => void,
): Readable {
  const watch = stallWatch(writeTimeout, () => {
    log('list answer made no progress for %d ms (server.writeTimeout): closing the connection', writeTimeout);
    stalled();
  });
  const body = Readable.from(listEnvelope(message, readBatches, moreBatches, watch));
  body.once('close', () => {
    watch.resumed();
    void moreBatches.return(undefined).catch(() => undefined);
  });
  return body;
}
