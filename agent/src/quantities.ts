/**
 * Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity): a decimal number with an
 * optional binary suffix (Ki..Ei), decimal suffix (n u m k M G T P E) or decimal exponent (1e3).
 * Culture-independent on purpose: the original agent parsed with the host culture.
 */
const SUFFIXES: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const FRACTIONS: Record<string, number> = { n: 1e9, u: 1e6, m: 1e3 };

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/**
 * A cluster repeats a few quantity strings ("500m", "512Mi") across thousands of containers and every
 * cycle, so parsed values are remembered; the map is emptied when full, which bounds it for odd clusters.
 */
const parsed = new Map<string, number | undefined>();
const PARSED_MAX = 4096;

/** Value in base units (cores for CPU, bytes for memory), or undefined when the text is not a quantity. */
export function parseQuantity(text: string | undefined | null): number | undefined {
  if (text === undefined || text === null) return undefined;
  if (parsed.has(text)) return parsed.get(text);
  const value = parse(text);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, value);
  return value;
}

function parse(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  const base = Number(number);
  if (exponent !== undefined) return base * 10 ** Number(exponent);
  // Dividing keeps 123456789n exactly 0.123456789; multiplying by 1e-9 would not.
  if (suffix !== undefined && suffix in FRACTIONS) return base / (FRACTIONS[suffix] ?? 1);
  return base * (SUFFIXES[suffix ?? ''] ?? 1);
}

/** Parse, or null when absent/invalid; the ingest API stores null limits as "no limit", never as 0. */
export function quantityOrNull(text: string | undefined | null): number | null {
  return parseQuantity(text) ?? null;
}
