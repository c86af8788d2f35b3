import { describe, expect, it } from "vitest";
import { z } from "./zod.js";
import { UpstreamError } from "./errors.js";
import type { AdapterContextV1, JobAdapterV1 } from "./v1/index.js";
import { withSecretRedaction } from "./with-secret-redaction.js";

const secret = "leaky-token-0123456789abcdef";

function recordingContext() {
  const entries: unknown[] = [];
  const entry = (level: string) => (fields: Record<string, unknown>, message: string) =>
    entries.push({ level, fields, message });
  const context: AdapterContextV1 = {
    signal: new AbortController().signal,
    principal: "alice",
    logger: { debug: entry("debug"), info: entry("info"), warn: entry("warn"), error: entry("error") },
  };
  return { context, entries };
}

/** Puts its token in every way out of an adapter, including a log entry written after doStart returned. */
function leakyAdapter(secrets: JobAdapterV1["secrets"], token: () => string = () => secret) {
  let background: Promise<void> = Promise.resolve();
  const adapter: JobAdapterV1<{ jobId: string }> = {
    specificationVersion: "v1",
    kind: "leaky",
    ...(secrets !== undefined ? { secrets } : {}),
    tools: [
      {
        name: "leaky_job",
        description: "A job that leaks its token.",
        inputSchema: z.object({}),
        inputBeforeStart: () =>
          ({ confirm: { method: "elicitation/create", params: { message: `go as ${token()}?` } } }) as never,
        async doStart(_input, context) {
          background = Promise.resolve().then(() => context.logger.warn({ later: token() }, `still using ${token()}`));
          return {
            ref: { jobId: token() },
            snapshot: { status: "working", rawStatus: "running", message: `as ${token()}` },
          };
        },
      },
    ],
    async doGetStatus(_ref, context) {
      context.logger.info({ header: `Bearer ${token()}` }, `read with ${token()}`);
      return { status: "completed", rawStatus: "done", result: { content: [{ type: "text", text: token() }] } };
    },
    async doCancel() {
      throw new UpstreamError(`cancel failed: ${token()}`, { httpStatus: 503, cause: new Error(`inner ${token()}`) });
    },
    async close() {
      throw new Error(`close failed for ${token()}`);
    },
  };
  return { adapter, background: () => background };
}

describe("withSecretRedaction", () => {
  it("redacts snapshots, start results, questions, errors, causes and log entries, later ones included", async () => {
    const { adapter, background } = leakyAdapter([secret]);
    const wrapped = withSecretRedaction(adapter);
    const { context, entries } = recordingContext();
    const tool = wrapped.tools[0]!;
    const questions = tool.inputBeforeStart!({}, {});
    const started = await tool.doStart({}, context);
    await background();
    const snapshot = await wrapped.doGetStatus({ jobId: "j-1" }, context);
    const cancelError = await wrapped.doCancel!({ jobId: "j-1" }, context).catch((error: unknown) => error);
    const closeError = await wrapped.close!().catch((error: unknown) => error);

    expect(started.snapshot?.message).toBe("as [redacted]");
    // The ref is sealed into the task id, never shown: it goes on as it is.
    expect(started.ref).toEqual({ jobId: secret });
    expect(JSON.stringify(questions)).toContain("go as [redacted]?");
    expect(snapshot.result?.content).toEqual([{ type: "text", text: "[redacted]" }]);
    expect(cancelError).toBeInstanceOf(UpstreamError);
    expect(cancelError).toMatchObject({ message: "cancel failed: [redacted]", httpStatus: 503, isRetryable: true });
    expect(((cancelError as Error).cause as Error).message).toBe("inner [redacted]");
    expect((closeError as Error).message).toBe("close failed for [redacted]");
    expect(entries).toEqual([
      { level: "warn", fields: { later: "[redacted]" }, message: "still using [redacted]" },
      { level: "info", fields: { header: "Bearer [redacted]" }, message: "read with [redacted]" },
    ]);
    expect(JSON.stringify([questions, started.snapshot, snapshot, entries])).not.toContain(secret);
  });

  it("asks a secrets getter on every call, so a renewed credential is redacted too", async () => {
    let current = "first-credential-0123456789";
    const wrapped = withSecretRedaction(
      leakyAdapter(
        () => [current],
        () => current,
      ).adapter,
    );
    const { context } = recordingContext();
    expect((await wrapped.tools[0]!.doStart({}, context)).snapshot?.message).toBe("as [redacted]");
    current = "renewed-credential-9876543210";
    expect((await wrapped.tools[0]!.doStart({}, context)).snapshot?.message).toBe("as [redacted]");
  });

  it("redacts a credential that is renewed during a call from that call's answer and errors", async () => {
    const held = ["first-credential-0123456789"];
    let current = held[0]!;
    const { adapter } = leakyAdapter(
      () => held,
      () => current,
    );
    const renewing = {
      ...adapter,
      // The first request of the call fetches a new credential (an App installation token).
      async doGetStatus(ref: { jobId: string }, context: AdapterContextV1) {
        current = "renewed-credential-9876543210";
        held.push(current);
        return adapter.doGetStatus(ref, context);
      },
    };
    const { context, entries } = recordingContext();
    const snapshot = await withSecretRedaction(renewing).doGetStatus({ jobId: "j-1" }, context);
    expect(JSON.stringify([snapshot, entries])).not.toContain(current);
  });

  it("leaves an adapter without declared secrets as it is", () => {
    const { adapter } = leakyAdapter(undefined);
    expect(withSecretRedaction(adapter)).toBe(adapter);
  });
});

describe("withSecretRedaction and upstream events", () => {
  const token = "event-token-0123456789abcdef";
  const adapter: JobAdapterV1<{ jobId: string }> = {
    specificationVersion: "v1",
    kind: "evented",
    secrets: [token],
    tools: [],
    async doGetStatus() {
      return { status: "working", rawStatus: "running" };
    },
    events: {
      async doVerifyDelivery() {
        return { verified: false, reason: `signature made with ${token} does not match` };
      },
      async doReadDelivery() {
        return {
          event: "job",
          jobs: [
            { ref: { jobId: `job-${token}` }, snapshot: { status: "working", rawStatus: "running", message: token } },
            { ref: { jobId: "plain" } },
          ],
        };
      },
      jobIdentity: (ref) => ref.jobId.toLowerCase(),
      safetyReadIntervalMs: (followedJobs) => followedJobs * 1000,
    },
  };
  const delivery = { headers: {}, body: new Uint8Array(), receivedAt: 0 };

  it("redacts the snapshots an event carries and a refusal's reason, and leaves refs and identities alone", async () => {
    const events = withSecretRedaction(adapter).events!;
    const verification = await events.doVerifyDelivery(delivery);
    expect(JSON.stringify(verification)).not.toContain(token);
    const read = await events.doReadDelivery(delivery);
    expect(read.jobs[0]!.snapshot!.message).toBe("[redacted]");
    expect(read.jobs[0]!.ref).toEqual({ jobId: `job-${token}` });
    expect(read.jobs[1]).toEqual({ ref: { jobId: "plain" } });
    expect(events.jobIdentity!({ jobId: "AB" })).toBe("ab");
    expect(events.safetyReadIntervalMs!(40)).toBe(40_000);
  });
});

describe("withSecretRedaction and changes an adapter watches itself", () => {
  it("passes watchJobChanges on, redacting a change's snapshot and leaving its ref alone", () => {
    const token = "watch-token-0123456789abcdef";
    let report:
      | ((change: { ref: { jobId: string }; snapshot?: { status: "working"; rawStatus: string } }) => void)
      | undefined;
    const adapter: JobAdapterV1<{ jobId: string }> = {
      specificationVersion: "v1",
      kind: "watched",
      secrets: [token],
      tools: [],
      async doGetStatus() {
        return { status: "working", rawStatus: "running" };
      },
      watchJobChanges(reportChange) {
        report = reportChange;
      },
    };
    const seen: unknown[] = [];
    withSecretRedaction(adapter).watchJobChanges!((change) => seen.push(change));
    report!({ ref: { jobId: `job-${token}` }, snapshot: { status: "working", rawStatus: `pod of ${token}` } });
    report!({ ref: { jobId: "plain" } });
    expect(seen).toEqual([
      { ref: { jobId: `job-${token}` }, snapshot: { status: "working", rawStatus: "pod of [redacted]" } },
      { ref: { jobId: "plain" } },
    ]);
  });
});
