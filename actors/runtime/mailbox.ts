/**
 * A bounded FIFO mailbox: one letter is processed at a time, in arrival order; a full mailbox
 * refuses a letter at once (`offer` returns false) instead of queueing it. `deliver` handles its
 * own failures, so one letter never affects the next; `delivered` runs once the letter no longer
 * counts as pending (the actor system answers the asker there, so an answered actor is idle).
 */
export class Mailbox<L> {
  private queue: (L | undefined)[] = [];
  private head = 0;
  private running = false;
  private pendingCount = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly capacity: number,
    private readonly deliver: (letter: L) => Promise<void>,
    private readonly delivered: (letter: L) => void,
  ) {}

  /** Letters queued or being processed. */
  get pending(): number {
    return this.pendingCount;
  }

  /** Queues a letter; false (and nothing queued) when `capacity` letters are already pending. */
  offer(letter: L): boolean {
    if (this.pendingCount >= this.capacity) return false;
    this.pendingCount += 1;
    this.queue.push(letter);
    if (!this.running) void this.pump();
    return true;
  }

  /** Resolves once every letter offered so far has been processed. */
  drained(): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async pump(): Promise<void> {
    this.running = true;
    // Start in a later microtask, as a promise chain would: the asker's frame unwinds first.
    await undefined;
    while (this.head < this.queue.length) {
      const letter = this.queue[this.head] as L; // below length
      this.queue[this.head] = undefined;
      this.head += 1;
      if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
        this.queue = this.queue.slice(this.head); // a mailbox that never empties stays compact
        this.head = 0;
      }
      try {
        await this.deliver(letter);
      } catch {
        // deliver settles its own asker; nothing may stop the mailbox
      }
      this.pendingCount -= 1;
      this.delivered(letter);
    }
    this.queue = [];
    this.head = 0;
    this.running = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
