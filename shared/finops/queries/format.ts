/**
 * Wire formatting shared by the read API.
 *
 * The original read `datetime2` columns through EF Core, so `runDate`, `createdAt` of runs,
 * `recordedAt` and `costDate` went out without an offset ("2026-05-04T00:00:00",
 * "2026-05-04T12:11:31.123"), and the web client slices `costDate`. Our columns are
 * `timestamp(3)` without a zone; Prisma hands them back as Date objects whose UTC fields are the
 * stored wall-clock value, so the UTC fields are formatted here, never the local ones.
 */
export function offsetFree(value: Date): string;
export function offsetFree(value: Date | null): string | null;
export function offsetFree(value: Date | null): string | null {
  if (value === null) return null;
  const iso = value.toISOString(); // yyyy-mm-ddThh:mm:ss.fffZ
  const base = iso.slice(0, 19);
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  // .NET's round-trip format drops trailing zeros of the fraction, and the dot with them.
  return fraction ? `${base}.${fraction}` : base;
}

/** A timestamptz value (Subscriptions.createdAt/updatedAt): an instant, written with `Z`. */
export function instant(value: Date): string;
export function instant(value: Date | null): string | null;
export function instant(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

/**
 * Resource group names are written upper-case by every read route (W14): the original
 * upper-cased them in CostDetails and Resources but kept Azure's casing in HistoricalCosts, so a
 * client could not join the tables. Azure treats group names case-insensitively, so nothing is lost.
 */
export function groupName(value: string): string;
export function groupName(value: string | null): string | null;
export function groupName(value: string | null): string | null {
  return value === null ? null : value.toUpperCase();
}

/** A count from SQL (bigint) as a JS number. */
export function toCount(value: bigint | number | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}
