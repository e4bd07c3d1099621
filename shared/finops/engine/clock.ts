/**
 * The engine's one reading of the system time. Every part of an analysis and of its job rows takes
 * the time from the clock the engine was given, so a test or bench that moves the clock moves all
 * of them together.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
