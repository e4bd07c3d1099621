/** Progress of an import job while its files are read. */

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
