/** At most `size` holders at once; the others wait their turn, first come first served. */
export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** Resolves once a slot is free, with the function that gives it back (call it once). */
  async take(): Promise<() => void> {
    if (this.held < this.size) {
      this.held++;
    } else {
      await new Promise<void>((resolve) => this.waiting.push(resolve)); // handed over by a release
    }
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      const next = this.waiting.shift();
      if (next) {
        next();
      } else {
        this.held--;
      }
    };
  }
}
