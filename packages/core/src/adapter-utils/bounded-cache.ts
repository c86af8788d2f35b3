import { LRUCache } from "lru-cache";

/**
 * An LRU cache of at most `maxEntries` entries whose storage grows as entries arrive. Built with `max`,
 * lru-cache allocates and fills arrays of `max` slots at once; a server holds about ten caches of 10,000
 * entries, most of them nearly empty for its whole life, and filling them cost a stdio start several
 * milliseconds before its first answer. Bounding the total size at one per entry keeps the same bound,
 * and the same least-recently-used order, with arrays that grow on demand.
 */
export function boundedCache<Key extends {}, Value extends {}>(maxEntries: number): LRUCache<Key, Value> {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new RangeError(`a bounded cache holds at least one entry (got ${maxEntries})`);
  return new LRUCache<Key, Value>({ maxSize: maxEntries, sizeCalculation: () => 1 });
}
