// A binary min-heap of items ordered by a numeric priority (smallest first). A leaf: imports
// nothing, so the controller runtime's work queue and the landscape's simulators both use it.

export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly priorityOf: (item: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (this.priorityOf(a[up]) <= this.priorityOf(a[i])) break;
      [a[up], a[i]] = [a[i], a[up]];
      i = up;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < a.length && this.priorityOf(a[l]) < this.priorityOf(a[min])) min = l;
        if (r < a.length && this.priorityOf(a[r]) < this.priorityOf(a[min])) min = r;
        if (min === i) break;
        [a[min], a[i]] = [a[i], a[min]];
        i = min;
      }
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}
