import { describe, expect, it } from "vitest";
import { AnswerLedger } from "./answer-ledger.js";

describe("AnswerLedger", () => {
  it("runs deliveries for one task one after another, those of other tasks alongside", async () => {
    const ledger = new AnswerLedger();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const first = ledger.serialise("task-a", async () => {
      events.push("a1 start");
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      events.push("a1 end");
      throw new Error("the upstream refused");
    });
    const second = ledger.serialise("task-a", async () => void events.push("a2"));
    const other = ledger.serialise("task-b", async () => void events.push("b1"));
    await other;
    expect(events).toEqual(["a1 start", "b1"]);
    releaseFirst();
    await expect(first).rejects.toThrow("the upstream refused");
    await second;
    // A failed delivery does not block the next one.
    expect(events).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("remembers answered keys for rememberMs, and at most maxTasks tasks, forgetting the least recently answered", () => {
    let now = 0;
    const ledger = new AnswerLedger({ maxTasks: 2, rememberMs: 1_000, now: () => now });
    ledger.remember("a", ["k1"]);
    ledger.remember("b", ["k1"]);
    ledger.remember("a", ["k2"]);
    ledger.remember("c", ["k1"]);
    expect([...ledger.answered("a")]).toEqual(["k1", "k2"]);
    expect(ledger.answered("b").size).toBe(0);
    expect(ledger.answered("c").has("k1")).toBe(true);
    now += 1_000;
    expect(ledger.answered("a").size).toBe(0);
  });
});
