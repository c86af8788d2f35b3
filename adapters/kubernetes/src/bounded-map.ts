/** A Map that forgets its oldest entries past `max`: memory of Jobs stays bounded however many pass. */
export class BoundedMap<Key, Value> {
  readonly #entries = new Map<Key, Value>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: Key): Value | undefined {
    return this.#entries.get(key);
  }

  has(key: Key): boolean {
    return this.#entries.has(key);
  }

  set(key: Key, value: Value): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as Key);
  }
}
