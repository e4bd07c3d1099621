/**
 * Exact money for the Kubernetes cost allocation. Bills carry many decimals; the allocation works in
 * floating point and only its results are rounded, so every day's lines add up to that day's bill
 * rounded once to the cent.
 */

/** An amount as integer millionths of the currency unit: sums of these are exact (below 9e9 units). */
export function toMicros(amount: number): number {
  return Math.round(amount * 1e6);
}

/** Integer cents from integer micros, half away from zero (as a bill total would be shown). */
export function microsToCents(micros: number): number {
  const sign = micros < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(micros) + 5_000) / 10_000);
}

/**
 * Rounds `values` (in cents, floating point) to integer cents whose sum is exactly `targetCents`,
 * by the largest-remainder method: every value is floored, and the cents still missing go one each
 * to the values with the largest fractional parts (ties: the earlier value). No value moves by more
 * than one cent plus the floating-point error of the inputs' sum, and the order of keys decides
 * nothing but ties. When the inputs' sum is off the target by more than rounding (it should not be),
 * the difference lands on the largest value, so the total still holds.
 */
export function roundToTarget(values: readonly number[], targetCents: number): number[] {
  const n = values.length;
  if (n === 0) return [];
  const out = new Array<number>(n);
  const frac = new Array<number>(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const f = Math.floor(v);
    out[i] = f;
    frac[i] = v - f;
    sum += f;
  }
  let missing = targetCents - sum;
  if (missing > 0 && missing <= n) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => frac[b]! - frac[a]! || a - b);
    for (let k = 0; k < missing; k++) out[order[k]!]! += 1;
    missing = 0;
  }
  if (missing !== 0) {
    let big = 0;
    for (let i = 1; i < n; i++) if (Math.abs(values[i]!) > Math.abs(values[big]!)) big = i;
    out[big]! += missing;
  }
  return out;
}
