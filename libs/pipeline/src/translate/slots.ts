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
    if (this.waiting.length === 0 && this.fits(amount)) {
      this.held += amount;
    } else {
      await new Promise<void>((admit) => this.waiting.push({ amount, admit })); // let in by a release
    }
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
