import type { Attributes, Meter, MetricOptions } from "@opentelemetry/api";

/**
 * A counter of two labels whose counts are kept here and handed to the SDK at each collection (an
 * observable counter), for the counters every poll adds to. The SDK's own counter sorts and serialises
 * the attribute set on each add to find its series; here an add is two map lookups, and the attribute
 * set is made once per pair of values. What a scrape shows is the same monotonic counter.
 *
 * The label values must come from short fixed lists (an adapter instance, a task status), as every
 * label's must: each pair stays in memory for the life of the process.
 */
export class TalliedCounter {
  readonly #labels: readonly [string, string];
  readonly #tallies = new Map<string, Map<string, { attributes: Attributes; count: number }>>();

  /**
   * The counter `name` of `meter`: one per meter and name, shared by every Telemetry built on that meter
   * (two task services in one process). Two observations of one series in a collection would not add
   * up: the SDK keeps the last.
   */
  static of(meter: Meter, name: string, options: MetricOptions, labels: readonly [string, string]): TalliedCounter {
    let byName = counters.get(meter);
    if (byName === undefined) counters.set(meter, (byName = new Map()));
    let counter = byName.get(name);
    if (counter === undefined) byName.set(name, (counter = new TalliedCounter(meter, name, options, labels)));
    return counter;
  }

  private constructor(meter: Meter, name: string, options: MetricOptions, labels: readonly [string, string]) {
    this.#labels = labels;
    meter.createObservableCounter(name, options).addCallback((result) => {
      for (const byFirst of this.#tallies.values())
        for (const tally of byFirst.values()) result.observe(tally.count, tally.attributes);
    });
  }

  add(first: string, second: string): void {
    let byFirst = this.#tallies.get(first);
    if (byFirst === undefined) this.#tallies.set(first, (byFirst = new Map()));
    const tally = byFirst.get(second);
    if (tally !== undefined) tally.count += 1;
    else byFirst.set(second, { attributes: { [this.#labels[0]]: first, [this.#labels[1]]: second }, count: 1 });
  }
}

const counters = new WeakMap<Meter, Map<string, TalliedCounter>>();
