/**
 * What cost intelligence does once a run (an analysis or an import) is stored: detect anomalies on
 * its history. A failure here never fails the run: the run is stored and stays valid; the next run
 * finds the same anomalies again.
 */
import type { PrismaClient } from '../../db/client.js';
import type { Logger } from '../../observability/logger.js';
import { detectForRun, type NewAnomaly } from './anomaly-store.js';
import { DEFAULT_DETECT, type DetectSettings } from './detect.js';

export interface IntelDeps {
  prisma: PrismaClient;
  log: Logger;
  intel?: DetectSettings | undefined;
}

export async function afterRunStored(deps: IntelDeps, analysisRunId: number): Promise<NewAnomaly[]> {
  try {
    const found = await detectForRun(deps.prisma, analysisRunId, deps.intel ?? DEFAULT_DETECT);
    if (found.length) deps.log.info({ analysisRunId, newAnomalies: found.length }, 'cost anomalies found');
    return found;
  } catch (err) {
    deps.log.warn({ analysisRunId, err }, 'anomaly detection failed; the run is stored');
    return [];
  }
}
