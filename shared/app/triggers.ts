import type { AppConfig } from '../config/index.js';
import { weeklyNcrontab } from './weekly-schedule.js';

/** The queue trigger's binding: host.json's batchSize 1 makes it the single-job gate's feeder. */
export function queueTrigger(config: AppConfig) {
  return {
    name: 'analysis-queue',
    queueName: config.platform.AnalysisQueue__Name,
    connection: 'AzureWebJobsStorage',
  };
}

/**
 * The analysis job sweeper every minute. Instances sweep on their own short interval too, but an
 * instance only runs while it has work (Flex Consumption scales to zero): the timer makes sure some
 * instance looks for abandoned jobs and lost queue messages.
 */
export function jobSweepTimerTrigger() {
  return { name: 'analysis-job-sweeper', schedule: '0 */1 * * * *' };
}

/** The weekly timer, or nothing when WeeklyAnalysis__Enabled=false. */
export function weeklyTimerTrigger(config: AppConfig) {
  if (!config.finops.WeeklyAnalysis__Enabled) return undefined;
  return { name: 'weekly-analysis', schedule: weeklyNcrontab(config.finops) };
}

/**
 * The notification outbox timer in Azure (the local host polls instead): every
 * Notifications__PollSeconds when that divides a minute, otherwise every minute.
 */
export function notificationTimerTrigger(config: AppConfig) {
  const n = config.finops.Notifications__PollSeconds;
  return {
    name: 'notification-outbox',
    schedule: n < 60 && 60 % n === 0 ? `*/${n} * * * * *` : '0 * * * * *',
  };
}

/**
 * The metrics store's housekeeping every hour: day partitions made ahead, partitions past their
 * retention dropped. (Writes also make a missing partition, so a late timer loses nothing.)
 */
export function metricsHousekeepingTimerTrigger() {
  return { name: 'metrics-housekeeping', schedule: '0 7 * * * *' };
}
