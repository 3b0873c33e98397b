/** The request journal: a bounded ring of the newest requests, for `GET /__sim/requests`. */
export interface JournalEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  userId: string | null;
}

export class Journal {
  private readonly ring: (JournalEntry | undefined)[];
  private next = 0;
  private size = 0;

  constructor(readonly capacity = 1000) {
    this.ring = new Array(capacity);
  }

  add(entry: JournalEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** Newest first. */
  newest(limit: number): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = 1; i <= Math.min(limit, this.size); i++) {
      const e = this.ring[(this.next - i + this.capacity) % this.capacity];
      if (e) out.push(e);
    }
    return out;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.size = 0;
  }
}
