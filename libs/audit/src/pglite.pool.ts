import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';

type Release = (error?: unknown) => void;
type ConnectCallback = (error: unknown, client: PGlitePool | null, release: Release) => void;

/**
 * typeorm-pglite hands every query runner the same PGlite session and a release that does
 * nothing, so two transactions open at once would interleave their statements in one session.
 * This pool lends its single connection to one query runner at a time; the others wait their
 * turn, as with a pg pool of size one. A query made inside a transaction must therefore go
 * through that transaction's manager (which it should anyway), or it waits forever.
 */
export class SerialPGlitePool extends PGlitePool {
  private turn: Promise<void> = Promise.resolve();

  override async connect(callback: ConnectCallback): Promise<void> {
    let release!: () => void;
    const previous = this.turn;
    this.turn = new Promise<void>((resolve) => (release = resolve));
    await previous;
    let released = false;
    const releaseOnce: Release = () => {
      if (released) {
        return;
      }
      released = true;
      release();
    };
    await super.connect((error, client) => {
      if (error) {
        releaseOnce();
      }
      callback(error, client, releaseOnce);
    });
  }
}
