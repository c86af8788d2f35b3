import { createSecretRedactor } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { readStepLogTails, tailLines, type StepWindow } from "./tail-step-log.js";
import { fixtureText } from "./test-support/github-fixtures.js";

const log = fixtureText("job-log-failure.txt");

/** A log served in chunks of `size` characters, counting how many were read. */
function chunked(text: string, size: number, read = { chunks: 0 }): AsyncIterable<string> {
  return (async function* () {
    for (let index = 0; index < text.length; index += size) {
      read.chunks += 1;
      yield text.slice(index, index + size);
    }
  })();
}

/** All lines of the step (a generous budget), as they come out of the stream. */
async function stepLines(text: string, window: StepWindow, chunkSize = 7): Promise<string[]> {
  const [tail] = await readStepLogTails(chunked(text, chunkSize), [window], {
    maxLinesPerStep: 1000,
    maxBytes: 1_000_000,
  });
  return tail!.text.split("\n");
}

describe("readStepLogTails", () => {
  it("keeps only the lines stamped inside the step's window, without timestamps or endgroup markers", async () => {
    const lines = await stepLines(log, { startedAt: "2026-11-20T10:00:10Z", completedAt: "2026-11-20T10:04:05Z" });
    expect(lines[0]).toBe("##[group]Run npm test");
    expect(lines).not.toContain("##[endgroup]");
    expect(lines).not.toContain("Checking out the ref");
    expect(lines).not.toContain("Post job cleanup.");
    expect(lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
  });

  it("falls back to the end of the whole log when no stamp falls inside the window", async () => {
    const lines = await stepLines(log, { startedAt: "2030-01-01T00:00:00Z", completedAt: "2030-01-01T00:01:00Z" });
    expect(lines[0]).toBe("Current runner version: '2.329.0'");
    expect(lines.at(-1)).toBe("Cleaning up orphan processes");
  });

  it("strips colour codes and carriage returns", async () => {
    expect(
      await stepLines("2026-11-20T10:00:00.0000000Z \u001b[31mFAIL\u001b[0m src/a.test.ts\r\n", {
        startedAt: null,
        completedAt: null,
      }),
    ).toEqual(["FAIL src/a.test.ts"]);
  });

  it("stops reading the log once every step has its lines and the log is past the last step's end", async () => {
    const stepLog = Array.from(
      { length: 50 },
      (_, index) => `2026-11-20T10:00:${String(index + 10)}.0000000Z step line ${index + 1}`,
    );
    const later = Array.from({ length: 100_000 }, (_, index) => `2026-11-20T10:05:00.0000000Z later line ${index + 1}`);
    const read = { chunks: 0 };
    const [tail] = await readStepLogTails(
      chunked([...stepLog, ...later].join("\n"), 4096, read),
      [{ startedAt: "2026-11-20T10:00:10Z", completedAt: "2026-11-20T10:00:59Z" }],
      { maxLinesPerStep: 3, maxBytes: 4096 },
    );
    expect(tail).toEqual({ text: "step line 48\nstep line 49\nstep line 50", truncated: true });
    // About 4.5 MB of log; everything after the step's first chunk past its end stays unread.
    expect(read.chunks).toBeLessThan(3);
  });

  it("holds no more of a line without newlines than the budget can use; the core redacts what is left of a secret at its cut", async () => {
    const secret = "ghp_SecretThatAWorkflowEchoed000";
    const read = { chunks: 0 };
    const huge = `2026-11-20T10:00:30.0000000Z ${"x".repeat(8 * 1024 * 1024)} token ${secret} end`;
    const [tail] = await readStepLogTails(chunked(huge, 64 * 1024, read), [{ startedAt: null, completedAt: null }], {
      maxLinesPerStep: 5,
      maxBytes: 30,
    });
    expect(read.chunks).toBeGreaterThan(100);
    // The tail begins inside the secret; the core's redaction (withSecretRedaction) removes the piece.
    expect(tail!.text).toBe(`${secret.slice(6)} end`);
    expect(createSecretRedactor([secret]).text(tail!.text)).toBe("[redacted] end");
    expect(tail!.truncated).toBe(true);
  });

  it("keeps a multi-line secret (an App's PEM key) echoed into the log line by line, as the core redacts it", async () => {
    const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretbody0123456789\n-----END RSA PRIVATE KEY-----";
    const text = key
      .split("\n")
      .map((line) => `2026-11-20T10:00:30.0000000Z ${line}`)
      .join("\n");
    const [tail] = await readStepLogTails(chunked(text, 5), [{ startedAt: null, completedAt: null }], {
      maxLinesPerStep: 10,
      maxBytes: 1000,
    });
    expect(tail!.text.split("\n")).toHaveLength(3);
    expect(createSecretRedactor([key]).text(tail!.text)).not.toContain("MIIEowIBAAKCAQEAsecretbody0123456789");
  });
});

describe("readStepLogTails on a hostile log", () => {
  it("removes title, clipboard and screen escapes and shows a carriage return or bidi override", async () => {
    async function* chunks() {
      yield "2026-11-20T10:00:10.0000000Z \u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u001b\\build \u001b[1;32mok\u001b[0m\n";
      yield "2026-11-20T10:00:11.0000000Z \u001b[2Jdone\rApproved \u202Eyes\u009d0;t\u0007\n";
    }
    const window = { startedAt: "2026-11-20T10:00:10Z", completedAt: "2026-11-20T10:00:11Z" };
    const [tail] = await readStepLogTails(chunks(), [window], { maxLinesPerStep: 10, maxBytes: 10_000 });
    expect(tail!.text).toBe("build ok\ndone␍Approved <U+202E>yes");
  });
});

describe("tailLines", () => {
  const lines = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`);

  it("keeps the last lines within the line budget", () => {
    const tail = tailLines(lines, 3, 10_000);
    expect(tail).toEqual({ text: "line 98\nline 99\nline 100", truncated: true });
  });

  it("drops lines from the start until the byte budget holds", () => {
    const tail = tailLines(lines, 50, 20);
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(20);
    expect(tail.text).toBe("line 99\nline 100");
    expect(tail.truncated).toBe(true);
  });

  it("cuts a single long line on a character boundary", () => {
    const tail = tailLines(["ééééééé end"], 5, 8);
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(8);
    expect(tail.text.endsWith(" end")).toBe(true);
    expect(tail.text).not.toContain("\uFFFD");
  });

  it("reports no truncation when everything fits", () => {
    expect(tailLines(["a", "b"], 5, 100)).toEqual({ text: "a\nb", truncated: false });
  });

  it("stops reading after maxReadBytes (counted exactly, so every replica cuts at the same byte) and says so", async () => {
    const line = (index: number) =>
      `2026-11-20T10:00:${String(10 + (index % 40)).padStart(2, "0")}.0000000Z line ${index}`;
    const text = Array.from({ length: 10_000 }, (_, index) => line(index)).join("\n");
    const read = { chunks: 0 };
    const window = { startedAt: "2026-11-20T10:00:10Z", completedAt: "2026-11-20T10:00:49Z" };
    const [tail] = await readStepLogTails(
      chunked(text, 1000, read),
      [window],
      { maxLinesPerStep: 3, maxBytes: 1000 },
      { maxReadBytes: 5000 },
    );
    expect(read.chunks).toBeLessThanOrEqual(6);
    expect(tail!.stoppedEarly).toBe("reading stopped after the first 5000 bytes of the log");
    expect(tail!.truncated).toBe(true);
    // The last line kept ends exactly at byte 5000, whatever the chunk sizes.
    const [again] = await readStepLogTails(
      chunked(text, 777),
      [window],
      { maxLinesPerStep: 3, maxBytes: 1000 },
      {
        maxReadBytes: 5000,
      },
    );
    expect(again!.text).toBe(tail!.text);
    expect(text.slice(0, 5000).endsWith(tail!.text.split("\n").at(-1)!)).toBe(true);
  });

  it("stops reading a stalled log when the stop signal fires, keeping what it read", async () => {
    const stalled: AsyncIterable<string> = {
      [Symbol.asyncIterator]() {
        let sent = false;
        return {
          next: () => {
            if (sent) return new Promise<IteratorResult<string>>(() => {});
            sent = true;
            return Promise.resolve({ done: false, value: "2026-11-20T10:00:10.0000000Z first line\n" });
          },
        };
      },
    };
    const started = Date.now();
    const [tail] = await readStepLogTails(
      stalled,
      [{ startedAt: null, completedAt: null }],
      { maxLinesPerStep: 3, maxBytes: 1000 },
      {
        stop: AbortSignal.timeout(50),
        stopReason: "the time budget ran out",
      },
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(tail).toMatchObject({
      text: "first line",
      truncated: true,
      stoppedEarly: "reading stopped: the time budget ran out",
    });
  });
});
