/**
 * At most `size` held at once, each holder taking `amount` (1: a slot; bytes: a budget); the others
 * wait their turn, first come first served, so that a large holder is not passed over for ever by
 * small ones. A holder larger than `size` is let in alone.
 */
export class Slots {
  private held = 0;
  private readonly waiting: { amount: number; admit: () => void }[] = [];

  constructor(readonly size: number) {}

  /** Resolves once `amount` is free, with the function that gives it back (call it once). */
  async take(amount = 1): Promise<() => void> {
    return (await this.takeWithin(amount, Infinity))!;
  }

  /** As take, but gives up after `waitMs` (null): for a holder that has something better to do than wait longer. */
  async takeWithin(amount: number, waitMs: number): Promise<(() => void) | null> {
    if (this.waiting.length === 0 && this.fits(amount)) {
      this.held += amount;
      return this.releaser(amount);
    }
    const admitted = await new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const entry = {
        amount,
        admit: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiting.push(entry); // let in by a release
      if (Number.isFinite(waitMs)) {
        timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          this.admitWaiting(); // those behind it may fit now
          resolve(false);
        }, waitMs).unref();
      }
    });
    return admitted ? this.releaser(amount) : null;
  }

  private releaser(amount: number): () => void {
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      this.held -= amount;
      this.admitWaiting();
    };
  }

  private fits(amount: number): boolean {
    return this.held === 0 || this.held + amount <= this.size;
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].amount)) {
      const next = this.waiting.shift()!;
      this.held += next.amount;
      next.admit();
    }
  }
}
