/** A FIFO mailbox: one message is processed at a time; a failure rejects only its own message. */
export class Mailbox {
    tail = Promise.resolve();
    pendingCount = 0;
    get pending() {
        return this.pendingCount;
    }
    enqueue(work) {
        this.pendingCount += 1;
        const run = this.tail.then(work);
        this.tail = run.then(() => this.settle(), () => this.settle());
        return run;
    }
    /** Resolves once every message enqueued so far has been processed. */
    drained() {
        return this.tail.then(() => undefined);
    }
    settle() {
        this.pendingCount -= 1;
    }
}
