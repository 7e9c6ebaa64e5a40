/**
 * The one bounded map: it forgets its least recently used entries first (Map keeps insertion order),
 * bounded in entries, and optionally in total weight (bytes), whichever is reached first. The newest
 * entry always stays, even when it alone weighs more than the bound (so a bound below 1 keeps one).
 * Used by the key renderer and the web mirror's image caches, the simulator's icon cache and the
 * logger's `once` keys; it imports nothing, so every layer may use it.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>()
  private weight = 0

  constructor(
    private readonly maxEntries: number,
    private readonly bound?: { maxWeight: number; weigh: (value: V) => number },
  ) {}

  get size(): number {
    return this.map.size
  }

  /** Total weight of the entries kept (0 without a weight bound). */
  get totalWeight(): number {
    return this.weight
  }

  /** The value, marked most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key)
    if (value !== undefined) {
      this.map.delete(key)
      this.map.set(key, value)
    }
    return value
  }

  /** Forgets `key`; whether it was there. */
  delete(key: K): boolean {
    const value = this.map.get(key)
    if (value === undefined) return false
    this.forget(key, value)
    return true
  }

  /** Adds or replaces a value; the oldest entries go while either bound is passed. */
  set(key: K, value: V): void {
    const old = this.map.get(key)
    if (old !== undefined) this.forget(key, old)
    this.map.set(key, value)
    if (this.bound) this.weight += this.bound.weigh(value)
    while (
      this.map.size > 1 &&
      (this.map.size > this.maxEntries || (this.bound && this.weight > this.bound.maxWeight))
    ) {
      const [oldestKey, oldestValue] = this.map.entries().next().value as [K, V]
      this.forget(oldestKey, oldestValue)
    }
  }

  private forget(key: K, value: V): void {
    this.map.delete(key)
    if (this.bound) this.weight -= this.bound.weigh(value)
  }
}
