/** Progress of an import job while its files are read. */
import type { BlobFile } from './blob.js';
import { type ExportSink, readExport } from './parse.js';

/** Reports the phase and, while reading, the share of the bytes read (0–1). */
export type ImportProgress = (phase: string, fraction?: number) => Promise<void>;

/** Passes a stream's chunks through, telling `onBytes` how many bytes each one had. */
export async function* counted(
  source: AsyncIterable<Buffer | Uint8Array>,
  onBytes: (n: number) => Promise<void>,
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    await onBytes(chunk.length);
    yield Buffer.from(chunk);
  }
}

/**
 * Reads files one after another into the sink, reporting `reading` by the bytes read against their
 * total (the listed sizes, or `total` when the caller knows it better).
 */
export async function readFiles(
  sink: ExportSink,
  files: BlobFile[],
  progress: ImportProgress,
  total = files.reduce((t, f) => t + (f.size ?? 0), 0),
): Promise<void> {
  let read = 0;
  for (const f of files) {
    const stream = (await f.open()) as AsyncIterable<Buffer>;
    await readExport(
      sink,
      counted(stream, (n) => {
        read += n;
        return progress('reading', total ? read / total : 0);
      }),
      f.name,
    );
  }
}
