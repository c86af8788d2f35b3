import type { Attributes } from "@opentelemetry/api";

/**
 * Attribute sets made once per key and reused, for the histograms every request records to: the SDK reads
 * a set without keeping it, so the same object can go with every recording of its series. Bounded, should
 * the values ever not come from short fixed lists: past `max` keys a set is made per call, as without this.
 */
export class AttributeSets {
  readonly #sets = new Map<string, Attributes>();
  readonly #max: number;

  constructor(max = 1000) {
    this.#max = max;
  }

  get(key: string, make: () => Attributes): Attributes {
    let attributes = this.#sets.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze(make());
      if (this.#sets.size < this.#max) this.#sets.set(key, attributes);
    }
    return attributes;
  }
}
