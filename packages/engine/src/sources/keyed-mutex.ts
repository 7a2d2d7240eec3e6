/**
 * One holder at a time per key: invocations, hooks and updates of one source never overlap (its
 * db and dedupe state are read-modify-write), while different sources run in parallel.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  isHeld(key: string): boolean {
    return this.tails.has(key);
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
