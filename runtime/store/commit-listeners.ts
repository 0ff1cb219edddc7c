// The listeners of Store.onCommit, kept the same way by every store: each registration is its
// own entry (one function added twice is two subscriptions, removed one at a time), and a
// listener that throws never fails the commit or keeps the others from hearing of it.

import type { CommitListener, RowChange } from "../../model/store.js";

export class CommitListeners {
  private readonly entries = new Set<CommitListener>();

  add(listener: CommitListener): () => void {
    const entry: CommitListener = (changes) => listener(changes);
    this.entries.add(entry);
    return () => this.entries.delete(entry);
  }

  /** After the COMMIT, before the writes resolve: a listener sees a change before its writer's answer. */
  publish(changes: readonly RowChange[]): void {
    for (const listener of this.entries) {
      try {
        listener(changes);
      } catch {
        // A listener's failure is its own: the write is committed and the others still hear of it.
      }
    }
  }
}
