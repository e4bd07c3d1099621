/**
 * A node's four conditions and what a change of them says, with the original's wording: the web
 * client and whoever reads the notifications know these sentences.
 */

export interface NodeConditions {
  isReady: boolean | null;
  hasMemoryPressure: boolean | null;
  hasDiskPressure: boolean | null;
  hasPidPressure: boolean | null;
}

/** Whether two sets of conditions differ; null is a value of its own (null→false is a change). */
export function conditionsDiffer(a: NodeConditions, b: NodeConditions): boolean {
  return (
    a.isReady !== b.isReady ||
    a.hasMemoryPressure !== b.hasMemoryPressure ||
    a.hasDiskPressure !== b.hasDiskPressure ||
    a.hasPidPressure !== b.hasPidPressure
  );
}

/** Healthy: ready (or unknown) and no pressure reported. */
export function isHealthy(c: NodeConditions): boolean {
  return (
    c.isReady !== false &&
    c.hasMemoryPressure !== true &&
    c.hasDiskPressure !== true &&
    c.hasPidPressure !== true
  );
}

export function statusMessage(nodeName: string, c: NodeConditions): string {
  if (isHealthy(c)) return `Node ${nodeName} is healthy. All conditions are OK.`;
  const issues: string[] = [];
  if (c.isReady === false) issues.push('Node is not ready');
  if (c.hasMemoryPressure === true) issues.push('Memory pressure detected');
  if (c.hasDiskPressure === true) issues.push('Disk pressure detected');
  if (c.hasPidPressure === true) issues.push('PID pressure detected');
  return `Node ${nodeName} has issues: ${issues.join(', ')}`;
}

/** A boolean condition as posted: true, false, or null when the agent did not know it. */
export function condition(v: unknown): boolean | null {
  return typeof v === 'boolean' ? v : null;
}
