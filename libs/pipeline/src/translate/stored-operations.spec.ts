import type { OperationRepository, StreamedBatch } from '@dockbridge/audit';
import type { CanonicalOperation } from '@dockbridge/mapping';
import { StoredOperations } from './stored-operations';

const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const op = (id: string): CanonicalOperation => ({
  kind: 'document.delete',
  organisationId: ORG,
  documentId: id,
});

/** A store whose writes end when the spec says so, recording what happened in which order. */
class SlowStore {
  readonly log: string[] = [];
  private readonly pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  inFlight = 0;
  mostInFlight = 0;

  asRepository(): OperationRepository {
    return this as unknown as OperationRepository;
  }
  appendStreamed(_run: string, batch: StreamedBatch): Promise<void> {
    const fromSeq = batch.firstSeq;
    this.log.push(`write ${fromSeq}+${batch.size}`);
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    return new Promise<void>((resolve, reject) => this.pending.push({ resolve, reject })).finally(() => {
      this.inFlight--;
      this.log.push(`written ${fromSeq}`);
    });
  }
  async removeSeqRange(_messageId: string, fromSeq: number): Promise<void> {
    this.log.push(`remove from ${fromSeq}`);
    await Promise.resolve();
  }
  finishNext(error?: Error): void {
    const next = this.pending.shift()!;
    if (error) {
      next.reject(error);
    } else {
      next.resolve();
    }
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StoredOperations', () => {
  it('maps the next batch while the last one is written, one write at a time', async () => {
    const store = new SlowStore();
    const sink = new StoredOperations(store.asRepository(), 'm1', 'run', new Set([ORG]), 2);
    await sink.operation('i1', op('A'));
    await sink.operation('i1', op('B')); // a batch: its write starts, the caller goes on
    await sink.operation('i1', op('C'));
    expect(store.log).toEqual(['write 1+2']);
    const fourth = sink.operation('i1', op('D')); // the next batch waits for the first write
    await settle();
    expect(store.log).toEqual(['write 1+2']);
    store.finishNext();
    await fourth;
    expect(store.log).toEqual(['write 1+2', 'written 1', 'write 3+2']);
    const flushed = sink.flush();
    store.finishNext();
    await flushed;
    expect(store.mostInFlight).toBe(1);
  });

  it('ends a batch at its weight in loads, so small documents go many to a write and large ones few', async () => {
    const store = new SlowStore();
    const sink = new StoredOperations(store.asRepository(), 'm1', 'run', new Set([ORG]), 1000, 30);
    const asn = (id: string, loads: number): CanonicalOperation => ({
      kind: 'document.upsert',
      organisationId: ORG,
      document: {
        id,
        direction: 'Inbound',
        loads: Array.from({ length: loads }, (_, n) => ({ name: `L${n}`, quantity: 1 })),
      },
    });
    for (const id of ['A', 'B']) {
      await sink.operation('i1', asn(id, 9)); // 10 each
    }
    expect(store.log).toEqual([]);
    await sink.operation('i1', asn('C', 9)); // 30: a batch of three
    expect(store.log).toEqual(['write 1+3']);
    store.finishNext();
    for (let n = 0; n < 29; n++) {
      await sink.operation('i1', op(`D${n}`)); // deletes weigh 1: 29 of them are not a batch yet
    }
    expect(store.log).toEqual(['write 1+3', 'written 1']);
    await sink.operation('i1', op('D29'));
    expect(store.log).toEqual(['write 1+3', 'written 1', 'write 4+30']);
    store.finishNext();
    await sink.flush();
  });

  it('throws a failed write at the next call that waits for it', async () => {
    const store = new SlowStore();
    const sink = new StoredOperations(store.asRepository(), 'm1', 'run', new Set([ORG]), 1);
    await sink.operation('i1', op('A'));
    store.finishNext(new Error('database away'));
    await expect(sink.operation('i1', op('B'))).rejects.toThrow('database away');
  });

  it('removes a refused interchange only once what it wrote is stored', async () => {
    const store = new SlowStore();
    const sink = new StoredOperations(store.asRepository(), 'm1', 'run', new Set([ORG]), 2);
    await sink.operation('i1', op('A'));
    await sink.operation('i1', op('B'));
    const discarded = sink.discardInterchange('i1');
    await settle();
    expect(store.log).toEqual(['write 1+2']);
    store.finishNext();
    await discarded;
    expect(store.log).toEqual(['write 1+2', 'written 1', 'remove from 1']);
  });
});
