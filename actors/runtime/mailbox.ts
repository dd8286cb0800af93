/** A FIFO mailbox: one message is processed at a time; a failure rejects only its own message. */
export class Mailbox {
  private tail: Promise<unknown> = Promise.resolve();
  private pendingCount = 0;

  get pending(): number {
    return this.pendingCount;
  }

  enqueue<T>(work: () => Promise<T>): Promise<T> {
    this.pendingCount += 1;
    const run = this.tail.then(work);
    this.tail = run.then(
      () => this.settle(),
      () => this.settle(),
    );
    return run;
  }

  /** Resolves once every message enqueued so far has been processed. */
  drained(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private settle(): void {
    this.pendingCount -= 1;
  }
}
