import { useState } from 'react';
import { api, ok } from '../api/client';
import { BarChart, LineChart, StackedRows } from '../components/charts';
import { ago, ErrorNote, Panel, useLoad } from '../ui';

const HOURS = [1, 6, 24];

export function DashboardPage() {
  const [hours, setHours] = useState(6);
  const stats = useLoad(() => ok(api.GET('/v1/admin/stats', { params: { query: { hours } } })), [hours], 15000);
  const data = stats.data;
  const ms = (v: number | null | undefined) =>
    v == null ? '—' : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`;
  return (
    <>
      <h1>Dashboard</h1>
      <div className="row">
        <div className="field">
          <label htmlFor="dashboard-hours">Over the last</label>
          <select id="dashboard-hours" value={hours} onChange={(event) => setHours(Number(event.target.value))}>
            {HOURS.map((h) => (
              <option key={h} value={h}>
                {h} hour{h === 1 ? '' : 's'}
              </option>
            ))}
          </select>
        </div>
        {data && <p className="muted">per {Math.round(data.bucketSeconds / 60)} min, refreshed every 15 s</p>}
      </div>
      <ErrorNote error={stats.error} />
      <Panel title="Messages">
        <LineChart
          label={`Messages received, delivered and failed per ${data ? Math.round(data.bucketSeconds / 60) : 1} min`}
          times={data?.series.map((p) => p.at) ?? []}
          series={[
            { name: 'received', tone: 'info', values: data?.series.map((p) => p.received) ?? [] },
            { name: 'delivered', tone: 'good', values: data?.series.map((p) => p.delivered) ?? [] },
            { name: 'failed', tone: 'bad', values: data?.series.map((p) => p.failed) ?? [] },
          ]}
        />
      </Panel>
      <div className="columns">
        <Panel title="Delivery latency">
          <BarChart
            label="Delivery latency percentiles"
            bars={(['p50', 'p90', 'p99'] as const).map((p) => ({
              label: p,
              value: data?.latencyMs[p] ?? 0,
              tone: p === 'p99' ? 'warn' : 'info',
              text: ms(data?.latencyMs[p]),
            }))}
          />
        </Panel>
        <Panel title="Failures by class">
          <BarChart
            label="Failed delivery attempts by class"
            bars={[
              { label: 'retryable', value: data?.failuresByClass.retryable ?? 0, tone: 'warn' },
              { label: 'permanent', value: data?.failuresByClass.permanent ?? 0, tone: 'bad' },
              { label: 'auth', value: data?.failuresByClass.auth ?? 0, tone: 'bad' },
            ]}
          />
        </Panel>
      </div>
      <div className="columns">
        <Panel title="Queues">
          <StackedRows
            label="Jobs per queue"
            rows={(data?.queues ?? []).map((q) => ({
              label: q.name,
              parts: [
                { name: 'waiting', tone: 'info', value: q.waiting },
                { name: 'active', tone: 'good', value: q.active },
                { name: 'delayed', tone: 'warn', value: q.delayed },
                { name: 'failed', tone: 'bad', value: q.failed },
              ],
              note: q.oldestWaitingSeconds ? `oldest ${Math.round(q.oldestWaitingSeconds)} s` : undefined,
            }))}
          />
        </Panel>
        <Panel title="Partners">
          <StackedRows
            label="Messages per partner"
            rows={(data?.partners ?? []).map((p) => ({
              label: p.partner,
              parts: [
                { name: 'delivered', tone: 'good', value: p.delivered },
                { name: 'failed', tone: 'bad', value: p.failed },
                { name: 'other', tone: 'muted', value: Math.max(0, p.received - p.delivered - p.failed) },
              ],
              note: p.lastReceivedAt ? `last ${ago(String(p.lastReceivedAt))}` : 'silent',
            }))}
          />
        </Panel>
      </div>
    </>
  );
}
