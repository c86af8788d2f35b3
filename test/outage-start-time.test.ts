import { afterEach, describe, expect, it } from "vitest";
import { UpstreamError, type JobSnapshot } from "@jobtasks/core";
import { rawResult } from "./support/raw-rpc.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { createScriptedAdapter } from "./support/scripted-adapter.js";

/**
 * "Upstream unavailable since …" names when the outage began: the start of the first read that failed, not
 * its end. A failed read can take long (an adapter's own retries of a GitHub GET take about 16 s), and the
 * retry budget counts from the same moment.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const outageBegan = Date.parse("2026-11-02T08:00:00Z");
/** How long one failed read takes on the clock, as an adapter that retries inside the read would. */
const failedReadMs = 16_000;

async function serve(retryBudgetMs: number) {
  let now = outageBegan - 5_000;
  const scripted = createScriptedAdapter();
  const server = cleanup.add(
    await startInProcessServer({
      adapters: [{ name: "scripted", adapter: scripted.adapter }],
      service: { upstreamRetryBudgetMs: retryBudgetMs, now: () => now },
    }),
  );
  const taskId = (await rawResult(server.url, "tools/call", { name: "scripted_job", arguments: {} }))[
    "taskId"
  ] as string;
  const job = scripted.onlyJob();
  const readStatus = scripted.adapter.doGetStatus.bind(scripted.adapter);
  scripted.adapter.doGetStatus = async (ref, context): Promise<JobSnapshot> => {
    if (job.readError) now += failedReadMs;
    return readStatus(ref, context);
  };
  now = outageBegan;
  scripted.failReads(job, new UpstreamError("upstream answered 503", { httpStatus: 503 }));
  return { get: () => rawResult(server.url, "tasks/get", { taskId }) };
}

describe("the start of an outage", () => {
  it("is stamped when the first failed read began, not when it ended", async () => {
    const { get } = await serve(10 * 60_000);
    const task = await get();
    expect(task["status"]).toBe("working");
    expect(task["statusMessage"]).toMatch(
      /^Upstream unavailable since 2026-11-02T08:00:00\.000Z \(upstream answered 503\)/,
    );
    // Later failed reads keep the first stamp.
    expect((await get())["statusMessage"]).toMatch(/^Upstream unavailable since 2026-11-02T08:00:00\.000Z /);
  });

  it("starts the retry budget when the outage began", async () => {
    const { get } = await serve(60_000);
    // Reads end 16, 32 and 48 s into the outage: within the budget.
    for (let read = 1; read <= 3; read += 1) expect((await get())["status"]).toBe("working");
    // The fourth ends 64 s after the outage began (48 s after the first failed read ended): past the budget.
    const after = await get();
    expect(after["status"]).toBe("failed");
    expect(after["statusMessage"]).toMatch(/unavailable for more than 1 min/);
  });
});
