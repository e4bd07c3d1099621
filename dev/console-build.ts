import { buildConsole, consoleBuildIsStale } from '../scripts/build-console.js';
import type { Logger } from '../shared/observability/logger.js';

/**
 * `npm start` serves the console from dist/console: built here when it is missing or older than
 * web/, so a fresh clone's `npm install && npm start` and an edited page both show the current
 * console. A failed build is logged and the APIs start anyway (/console then says it is not built).
 */
export async function ensureConsoleBuilt(log: Logger): Promise<void> {
  if (!consoleBuildIsStale()) return;
  const started = performance.now();
  try {
    const built = await buildConsole({ quiet: true });
    log.info(
      { ms: Math.round(performance.now() - started), firstPageGzipBytes: built.firstPageGzip },
      'console built into dist/console',
    );
  } catch (error) {
    log.error({ err: error }, 'the console could not be built; the APIs start without it');
  }
}
