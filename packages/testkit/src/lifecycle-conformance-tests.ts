import { expect, it } from "vitest";
import { settledAnswerKeys, type ElicitationResponse, type JsonValue } from "@jobtasks/core";
import type { ConformanceSession } from "./conformance-session.js";

/** Tests of the calls that change an upstream job: start, respond and cancel. */

export function registerStartTests<Ref extends JsonValue>(session: ConformanceSession<Ref>, timeoutMs?: number): void {
  const start = session.harness.start;
  if (!start) return;
  it(
    `starts a job with ${start.tool} whose reference is JSON, fits the adapter's refSchema, and reads back at once`,
    async () => {
      const adapter = await session.createAdapter();
      const tool = adapter.tools.find((candidate) => candidate.name === start.tool);
      expect(tool, `the adapter has no tool named ${start.tool}`).toBeDefined();
      if (!tool) return;
      // The core validates with the tool's schema before doStart; do the same so defaults are applied.
      const parsed = tool.inputSchema.safeParse(start.input);
      expect(
        parsed.success,
        `harness.start.input does not pass ${start.tool}'s inputSchema: ${parsed.error?.message}`,
      ).toBe(true);

      const started = await tool.doStart(parsed.data, session.createContext());
      const serialised = JSON.stringify(started.ref);
      expect(serialised, "the reference is not JSON-serialisable").toBeTypeOf("string");
      expect(JSON.parse(serialised), "the reference changes through JSON").toEqual(started.ref);
      session.expectNoLeaks(started.ref, "the reference returned by doStart");
      if (started.snapshot !== undefined)
        session.expectValidSnapshot(started.snapshot, "the snapshot returned by doStart");

      // The server opens the reference from the task id through the adapter's refSchema, if it has one:
      // a reference that does not fit would make the new task id answer "Task not found" at once.
      let opened = JSON.parse(serialised) as Ref;
      if (adapter.refSchema !== undefined) {
        const fits = adapter.refSchema.safeParse(opened);
        expect(
          fits.success,
          `the reference returned by doStart does not fit the adapter's own refSchema: ${fits.error?.message}`,
        ).toBe(true);
        opened = fits.data as Ref;
      }
      const snapshot = await adapter.doGetStatus(opened, session.createContext());
      session.expectValidSnapshot(snapshot, "the first snapshot read after doStart");
    },
    timeoutMs,
  );
}

export function registerRespondTests<Ref extends JsonValue>(
  session: ConformanceSession<Ref>,
  timeoutMs?: number,
): void {
  const scenario = session.harness.inputRequired;
  it(
    "has an inputRequired scenario exactly when the adapter implements doRespond",
    async () => {
      const adapter = await session.createAdapter();
      if (adapter.doRespond && !scenario) {
        expect.fail(
          "the adapter implements doRespond, so the harness must give an inputRequired scenario (harness.inputRequired)",
        );
      }
      if (!adapter.doRespond && scenario) {
        expect.fail("the harness gives an inputRequired scenario, but the adapter has no doRespond");
      }
    },
    timeoutMs,
  );
  if (!scenario) return;

  it(
    "lists input requests for a job waiting for input, and delivers the answers",
    async () => {
      const adapter = await session.createAdapter();
      const ref = await scenario.arrange();
      const snapshot = await adapter.doGetStatus(ref, session.createContext());
      session.expectValidSnapshot(snapshot, "the snapshot of the job waiting for input");
      expect(snapshot.status, "the arranged job should be input_required").toBe("input_required");
      const keys = Object.keys(snapshot.inputRequests ?? {});
      expect(keys.length, "outstanding input requests").toBeGreaterThan(0);

      const responses: Record<string, ElicitationResponse> = Object.fromEntries(
        keys.map((key) => [key, scenario.response]),
      );
      await adapter.doRespond?.(ref, responses, session.createContext());
      expect(await scenario.verifyResponded(ref), "harness.inputRequired.verifyResponded").toBe(true);
    },
    timeoutMs,
  );
  registerAnswersLeavingOpenTests(session, () => scenario.arrange(), timeoutMs);
}

/**
 * An answer that leaves its question open upstream must not count as settled, or the server's answer
 * ledger ignores every later answer to the same question (the job waits for an answer it was sent).
 */
function registerAnswersLeavingOpenTests<Ref extends JsonValue>(
  session: ConformanceSession<Ref>,
  arrangeWaiting: () => Ref | Promise<Ref>,
  timeoutMs?: number,
): void {
  const cases = [
    { name: "a dismissed form (cancel)", arrange: arrangeWaiting, response: { action: "cancel" } as const },
    ...(session.harness.answersLeavingOpen ?? []),
  ];
  for (const answer of cases) {
    it(
      `leaves the question open after ${answer.name}, so a later answer is still delivered`,
      async () => {
        const adapter = await session.createAdapter();
        const ref = await answer.arrange();
        const snapshot = await adapter.doGetStatus(ref, session.createContext());
        expect(snapshot.status, `the job arranged for ${answer.name} should be input_required`).toBe("input_required");
        const appliesTo = "appliesTo" in answer && answer.appliesTo ? answer.appliesTo : () => true;
        const keys = Object.keys(snapshot.inputRequests ?? {}).filter((key) => appliesTo(key));
        expect(keys.length, `outstanding input requests answered with ${answer.name}`).toBeGreaterThan(0);
        const responses: Record<string, ElicitationResponse> = Object.fromEntries(
          keys.map((key) => [key, answer.response]),
        );
        const outcome = await adapter.doRespond?.(ref, responses, session.createContext());
        expect(
          settledAnswerKeys(responses, outcome),
          `doRespond's outcome counts ${answer.name} as settled; resolve to { leftOpen: [...] } naming those keys`,
        ).toEqual([]);
      },
      timeoutMs,
    );
  }
}

export function registerCancelTests<Ref extends JsonValue>(session: ConformanceSession<Ref>, timeoutMs?: number): void {
  const scenario = session.harness.cancel;
  it(
    "has a cancel scenario exactly when the adapter implements doCancel",
    async () => {
      const adapter = await session.createAdapter();
      if (adapter.doCancel && !scenario) {
        expect.fail("the adapter implements doCancel, so the harness must give a cancel scenario (harness.cancel)");
      }
      if (!adapter.doCancel && scenario)
        expect.fail("the harness gives a cancel scenario, but the adapter has no doCancel");
    },
    timeoutMs,
  );
  if (!scenario) return;

  it(
    "asks the upstream to cancel a running job",
    async () => {
      const adapter = await session.createAdapter();
      const ref = await scenario.arrange();
      await adapter.doCancel?.(ref, session.createContext());
      expect(await scenario.verifyCancelRequested(ref), "harness.cancel.verifyCancelRequested").toBe(true);
    },
    timeoutMs,
  );
}
