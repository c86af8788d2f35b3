import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { TaskIdSealer, TaskIdTooLongError, maximumTaskIdLength, type TaskReference } from "./task-id.js";

const secret = "a-test-secret-that-is-long-enough-0123456789";
const reference: TaskReference = {
  instance: "github",
  tool: "run_ci",
  ref: { owner: "acme", repo: "private-repo", runId: 123456789012, attempt: 1 },
  createdAt: Date.UTC(2026, 10, 29, 12, 0, 0),
};

describe("TaskIdSealer", () => {
  const sealer = new TaskIdSealer({ secret });

  it("round-trips a reference for the same principal", () => {
    const taskId = sealer.seal(reference, "alice");
    expect(sealer.open(taskId, "alice")).toEqual(reference);
  });

  it("opens an id sealed by an earlier release to the same reference", () => {
    // Sealed with `secret` for alice by the release whose TaskReference called the instance `adapter`: the
    // sealed array is positional, so the name in code is free to change and such ids keep opening.
    const sealedEarlier =
      "jt1.vqGEQS9a.xjdxUKI7HS5pvGkaHh0C7pZ-WF6d6-B96TqCFSoLoZiuh6W1XUfqAp_6A1Am46sZenh4pYckyYiZNsgdiFq45kQp9zPMAR6rqKvEcGsUMtuc1zr5WVq9nYTJ48FsvYP2vFkniiJD8kfU0oGA5np1xW-vFSnCLbx5s32UlZzBVzcB-m_j-w";
    expect(sealer.open(sealedEarlier, "alice")).toEqual(reference);
    expect(sealer.open(sealedEarlier, "bob")).toBeUndefined();
  });

  it("produces a different id each time (random nonce) and keeps ids compact", () => {
    const first = sealer.seal(reference, "alice");
    const second = sealer.seal(reference, "alice");
    expect(first).not.toBe(second);
    expect(first.length).toBeLessThan(300);
    expect(first).toMatch(/^jt1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
  });

  it("does not show the upstream reference in clear", () => {
    const taskId = sealer.seal(reference, "alice");
    expect(taskId).not.toContain("acme");
    expect(taskId).not.toContain("private-repo");
    expect(taskId).not.toContain("123456789012");
    expect(Buffer.from(taskId.split(".")[2]!, "base64url").toString("latin1")).not.toContain("private-repo");
  });

  it("refuses an id opened by another principal", () => {
    const taskId = sealer.seal(reference, "alice");
    expect(sealer.open(taskId, "bob")).toBeUndefined();
    expect(sealer.open(taskId, "")).toBeUndefined();
  });

  it("refuses every single-character edit of an id, including spare bits of the last character", () => {
    // Several ids, so that every length class of base64 (with and without spare trailing bits) is met.
    for (let round = 0; round < 8; round++) {
      const taskId = sealer.seal({ ...reference, tool: "t".repeat(round) }, "alice");
      const payloadStart = taskId.lastIndexOf(".") + 1;
      for (let index = payloadStart; index < taskId.length; index++) {
        const replacement = taskId[index] === "A" ? "B" : "A";
        const tampered = taskId.slice(0, index) + replacement + taskId.slice(index + 1);
        expect(sealer.open(tampered, "alice"), `edit at ${index}`).toBeUndefined();
      }
    }
  });

  it("refuses random strings, truncations and oversized input without throwing", () => {
    const taskId = sealer.seal(reference, "alice");
    for (const candidate of [
      "",
      "x",
      "jt1..",
      "jt1.abc.def",
      taskId.slice(0, -4),
      `${taskId}AA`,
      "jt1." + "A".repeat(5000),
      "00000000-0000-0000-0000-000000000000",
    ]) {
      expect(sealer.open(candidate, "alice")).toBeUndefined();
    }
  });

  it("refuses to seal a reference whose id would be longer than it can open", () => {
    const large = { ...reference, ref: { statusUrl: "/operations/" + "x".repeat(maximumTaskIdLength) } };
    expect(() => sealer.seal(large, "alice")).toThrow(TaskIdTooLongError);
    const fits = { ...reference, ref: { statusUrl: "/operations/" + "x".repeat(1000) } };
    expect(sealer.open(sealer.seal(fits, "alice"), "alice")).toEqual(fits);
  });

  it("refuses ids sealed with another secret", () => {
    const other = new TaskIdSealer({ secret: "another-secret-that-is-also-long-enough-xyz" });
    expect(sealer.open(other.seal(reference, "alice"), "alice")).toBeUndefined();
  });

  it("keeps opening ids sealed with a previous secret after rotation, and seals new ids with the new key", () => {
    const oldSealer = new TaskIdSealer({ secret });
    const oldTaskId = oldSealer.seal(reference, "alice");
    const rotated = new TaskIdSealer({ secret: "the-new-secret-after-rotation-0123456789", previousSecrets: [secret] });
    expect(rotated.open(oldTaskId, "alice")).toEqual(reference);
    const newTaskId = rotated.seal(reference, "alice");
    expect(newTaskId.split(".")[1]).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(oldSealer.currentKeyId);
    expect(oldSealer.open(newTaskId, "alice")).toBeUndefined();
  });

  it("rejects a short secret at construction, naming where it came from and not echoing it", () => {
    // The error is captured and checked unconditionally: the message checks cannot be skipped silently.
    const error = (() => {
      try {
        new TaskIdSealer({ secret: "short-secret", secretSource: "JOBTASKS_SECRET" });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("JOBTASKS_SECRET");
    expect((error as Error).message).not.toContain("short-secret");
  });
});
