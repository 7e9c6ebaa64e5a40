/** A bounded map that forgets its least recently used entry first (Map keeps insertion order). */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>()

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.map.size
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

  /** Adds or replaces a value; the oldest entry goes when there are more than `maxEntries`. */
  set(key: K, value: V): void {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next()
      if (!oldest.done) this.map.delete(oldest.value)
    }
  }
}
