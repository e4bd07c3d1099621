/**
 * Retail (pay-as-you-go, Linux) prices used only for days whose bill has not closed yet; the bill
 * replaces them when it arrives. A size not listed is priced per vCPU at the general-purpose rate.
 */

/** USD per hour, Azure's public retail prices for common AKS node sizes (West Europe, 2026). */
const VM_HOURLY: Record<string, number> = {
  standard_b2s: 0.0496,
  standard_b4ms: 0.192,
  standard_d2s_v5: 0.096,
  standard_d4s_v5: 0.192,
  standard_d8s_v5: 0.384,
  standard_d16s_v5: 0.768,
  standard_d2as_v5: 0.086,
  standard_d4as_v5: 0.172,
  standard_d8as_v5: 0.344,
  standard_e4s_v5: 0.252,
  standard_e8s_v5: 0.504,
  standard_f4s_v2: 0.169,
  standard_ds2_v2: 0.146,
};

/** Per vCPU-hour for a size not listed (a D-series v5 vCPU). */
export const DEFAULT_VCPU_HOURLY = 0.048;

/** The control plane's price per cluster-hour by tier. */
export const TIER_HOURLY_RATE: Record<string, number> = { free: 0, standard: 0.1, premium: 0.6 };

export function retailHourlyRate(vmSize: string | null): number {
  if (!vmSize) return 2 * DEFAULT_VCPU_HOURLY;
  const listed = VM_HOURLY[vmSize.toLowerCase()];
  if (listed !== undefined) return listed;
  // Standard_D8s_v5 -> 8 vCPUs: the number after the family letters.
  const m = /^standard_[a-z]+?(\d+)/i.exec(vmSize);
  return (m ? Number(m[1]) : 2) * DEFAULT_VCPU_HOURLY;
}
