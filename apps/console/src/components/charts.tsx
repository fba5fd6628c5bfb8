/*
 * Charts drawn as SVG by hand: three shapes (lines over time, bars, stacked rows) are ~150 lines,
 * need no dependency, are read by screen readers (role img, a label and a table-free summary), and
 * keep a fixed aspect ratio, so nothing moves when the data arrives.
 */

export interface Series {
  name: string;
  tone: string;
  values: number[];
}

const W = 720;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 26 };

const nice = (max: number) => {
  if (max <= 0) {
    return 1;
  }
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
};

const clock = (iso: string) => new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

export function LineChart({ label, times, series }: { label: string; times: string[]; series: Series[] }) {
  const top = nice(Math.max(0, ...series.flatMap((s) => s.values)));
  const x = (i: number) => PAD.left + (times.length > 1 ? (i / (times.length - 1)) * (W - PAD.left - PAD.right) : 0);
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom);
  const totals = series.map((s) => `${s.name} ${s.values.reduce((a, b) => a + b, 0)}`).join(', ');
  const ticks = times.length ? [0, Math.floor((times.length - 1) / 2), times.length - 1] : [];
  return (
    <figure className="chart" data-testid="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${label}: ${totals}`}>
        <title>{label}</title>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line className="grid" x1={PAD.left} x2={W - PAD.right} y1={y(top * f)} y2={y(top * f)} />
            <text className="axis" x={PAD.left - 6} y={y(top * f) + 4} textAnchor="end">
              {Math.round(top * f)}
            </text>
          </g>
        ))}
        {ticks.map((i) => (
          <text
            key={i}
            className="axis"
            x={x(i)}
            y={H - 8}
            textAnchor={i === 0 ? 'start' : i === times.length - 1 ? 'end' : 'middle'}
          >
            {clock(times[i])}
          </text>
        ))}
        {series.map((s) => (
          <polyline
            key={s.name}
            className={`line tone-${s.tone}`}
            points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')}
          />
        ))}
      </svg>
      <figcaption>
        {label}
        <span className="legend">
          {series.map((s) => (
            <span key={s.name} className={`key tone-${s.tone}`}>
              {s.name}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}

export interface Bar {
  label: string;
  value: number;
  tone: string;
  /** Shown instead of the value (units). */
  text?: string;
}

const NARROW = 480;

export function BarChart({ label, bars }: { label: string; bars: Bar[] }) {
  const top = nice(Math.max(0, ...bars.map((b) => b.value)));
  const row = 30;
  const height = Math.max(bars.length, 1) * row + 8;
  const left = 90;
  const width = NARROW - left - 80;
  return (
    <figure className="chart" data-testid="chart">
      <svg
        viewBox={`0 0 ${NARROW} ${height}`}
        role="img"
        aria-label={`${label}: ${bars.map((b) => `${b.label} ${b.text ?? b.value}`).join(', ')}`}
      >
        <title>{label}</title>
        {bars.map((bar, i) => (
          <g key={bar.label} transform={`translate(0 ${i * row + 4})`}>
            <text className="axis" x={left - 8} y={row / 2 + 4} textAnchor="end">
              {bar.label}
            </text>
            <rect
              className={`bar tone-${bar.tone}`}
              x={left}
              y={4}
              height={row - 10}
              width={(bar.value / top) * width}
            />
            <text className="value" x={left + (bar.value / top) * width + 6} y={row / 2 + 4}>
              {bar.text ?? bar.value.toLocaleString('en')}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>{label}</figcaption>
    </figure>
  );
}

export interface StackedRow {
  label: string;
  parts: { name: string; tone: string; value: number }[];
  note?: string;
}

/** One row per partner: its delivered, failed and other messages side by side, on one scale. */
export function StackedRows({ label, rows }: { label: string; rows: StackedRow[] }) {
  const top = nice(Math.max(0, ...rows.map((r) => r.parts.reduce((a, p) => a + p.value, 0))));
  const row = 30;
  const height = Math.max(rows.length, 1) * row + 8;
  const left = 100;
  const width = NARROW - left - 150;
  return (
    <figure className="chart" data-testid="chart">
      <svg
        viewBox={`0 0 ${NARROW} ${height}`}
        role="img"
        aria-label={`${label}: ${rows.map((r) => `${r.label} ${r.parts.map((p) => `${p.name} ${p.value}`).join(' ')}`).join('; ')}`}
      >
        <title>{label}</title>
        {rows.map((r, i) => {
          let at = left;
          return (
            <g key={r.label} transform={`translate(0 ${i * row + 4})`}>
              <text className="axis" x={left - 8} y={row / 2 + 4} textAnchor="end">
                {r.label}
              </text>
              {r.parts.map((part) => {
                const w = (part.value / top) * width;
                const rect = (
                  <rect key={part.name} className={`bar tone-${part.tone}`} x={at} y={4} height={row - 10} width={w} />
                );
                at += w;
                return rect;
              })}
              <text className="value" x={at + 6} y={row / 2 + 4}>
                {r.parts.map((p) => p.value.toLocaleString('en')).join(' / ')} {r.note}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        {label}
        <span className="legend">
          {rows[0]?.parts.map((p) => (
            <span key={p.name} className={`key tone-${p.tone}`}>
              {p.name}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}
