import type { Attributes, Histogram } from "@opentelemetry/api";
import { AttributeSets } from "./attribute-sets.js";

/**
 * A duration histogram as the server records to it: a value and the series it goes to, named by a key
 * the caller builds from short fixed lists (a method, a status, a route), with the attribute set made
 * from the same values the first time the key is seen. Two kinds: aggregated in the process and handed
 * to the SDK's reader (ProcessHistogram, what `jobtasks serve` uses), or the registered SDK's own
 * histogram through the API (ApiHistogram, for a program that registers its own SDK).
 */
export interface DurationHistogram {
  record(seconds: number, key: string, attributes: () => Attributes): void;
}

/** The SDK's histogram through the API, each key's attribute set made once (the SDK reads it without keeping it). */
export class ApiHistogram implements DurationHistogram {
  readonly #histogram: Histogram;
  readonly #attributeSets = new AttributeSets();

  constructor(histogram: Histogram) {
    this.#histogram = histogram;
  }

  record(seconds: number, key: string, attributes: () => Attributes): void {
    this.#histogram.record(seconds, this.#attributeSets.get(key, attributes));
  }
}
