import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceDot,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { money, shortDay } from '../format';

export interface SeriesPoint {
  date: string;
  cost: number;
  /** The typical range of the day, from the weeks before it. */
  band?: [number, number];
}

/** A daily cost series with its typical range, and the anomaly's day marked. Loaded with the Anomalies page only. */
export default function SeriesChart({
  points,
  marked,
  expected,
  currency,
  label,
}: {
  points: SeriesPoint[];
  marked: string;
  expected: number;
  currency: string;
  label: string;
}) {
  const hit = points.find((p) => p.date === marked);
  return (
    <figure aria-label={label} className="h-72 w-full text-slate-700 dark:text-slate-200">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={points} margin={{ top: 10, right: 20, bottom: 0, left: 10 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis
            dataKey="date"
            tickFormatter={shortDay}
            stroke="currentColor"
            fontSize={12}
            minTickGap={24}
          />
          <YAxis
            stroke="currentColor"
            fontSize={12}
            width={80}
            tickFormatter={(v: number) => money(v, currency)}
          />
          <Tooltip
            formatter={(v: unknown, name: unknown) =>
              Array.isArray(v)
                ? [`${money(v[0], currency)} – ${money(v[1], currency)}`, String(name)]
                : [money(Number(v), currency), String(name)]
            }
            labelFormatter={(l: unknown) => shortDay(String(l))}
            contentStyle={{ background: 'var(--color-slate-800)', color: 'white', border: 'none' }}
          />
          <Area
            dataKey="band"
            name="Typical range"
            stroke="none"
            fill="#14b8a6"
            fillOpacity={0.25}
            isAnimationActive={false}
          />
          <Line
            dataKey="cost"
            name="Cost"
            stroke="#0f766e"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
          {hit ? <ReferenceDot x={marked} y={hit.cost} r={7} fill="#dc2626" stroke="white" /> : null}
          {hit ? (
            <ReferenceDot x={marked} y={expected} r={5} fill="white" stroke="#0f766e" strokeWidth={2} />
          ) : null}
        </ComposedChart>
      </ResponsiveContainer>
      <figcaption className="mt-1 text-xs">
        Line: daily cost. Shaded: typical range (median of the four weeks before each day ± three robust
        deviations). Red dot: the anomaly; white dot: the cost expected that day ({money(expected, currency)}
        ).
      </figcaption>
    </figure>
  );
}
