/** Fixed-capacity FIFO: pushing onto a full ring evicts the oldest item, so memory stays bounded. */
export class Ring<T> {
  readonly #slots: (T | undefined)[];
  #start = 0;
  #size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.#slots = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.#size;
  }

  /** Item by age: 0 is the oldest, `length - 1` the newest. */
  at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.#size) return undefined;
    return this.#slots[(this.#start + index) % this.capacity];
  }

  /** Appends an item; returns the item evicted to make room, if any. */
  push(item: T): T | undefined {
    if (this.#size < this.capacity) {
      this.#slots[(this.#start + this.#size) % this.capacity] = item;
      this.#size += 1;
      return undefined;
    }
    const evicted = this.#slots[this.#start];
    this.#slots[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
    return evicted;
  }

  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#slots[this.#start];
    this.#slots[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.capacity;
    this.#size -= 1;
    return item;
  }

  clear(): void {
    this.#slots.fill(undefined);
    this.#start = 0;
    this.#size = 0;
  }
}
