/** Requests served, per route template and status (`GET /__sandbox/stats`). */
export class RequestStats {
  private counts = new Map<string, Map<number, number>>();

  record(route: string, status: number): void {
    const byStatus = this.counts.get(route) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.counts.set(route, byStatus);
  }

  clear(): void {
    this.counts.clear();
  }

  snapshot(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.counts].map(([route, byStatus]) => [route, Object.fromEntries(byStatus)]));
  }
}
