import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startInProcessServer, type InProcessServer } from "./support/in-process-server.js";
import {
  approvalRequest,
  completedSnapshot,
  createScriptedAdapter,
  inputRequiredSnapshot,
  type ScriptedAdapter,
} from "./support/scripted-adapter.js";
import { setTimeout as sleep } from "node:timers/promises";
import { jsonLines, runCli, runInTmux, startCli } from "./support/terminal-client.js";

/**
 * An upstream that puts escape sequences, carriage returns and bidi overrides in everything it says: the
 * terminal client prints none of them raw, for people or with --json, so a status line cannot set the
 * terminal's title or clipboard and an approval question cannot be drawn over with other text.
 */

vi.setConfig({ testTimeout: 60_000 });

const hostile =
  "\u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u0007\u001b[2J\u001b[31mDeploy prod\rApprove staging \u202Eyes\u009b2J";
// An input request's key is the upstream's too (the rest adapter reads it from the job API's answer).
const hostileKey = "k\u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u0007\u202Ex";
const otherHostileKey = "other\u001b]0;owned\u0007\u202Dy";
// What a terminal would act on: C0 controls but tab and newline, DEL, C1, bidi controls.
const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let scripted: ScriptedAdapter;
let server: InProcessServer;
beforeAll(async () => {
  scripted = createScriptedAdapter({ pollIntervalMs: 20 });
  server = await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] });
});
afterAll(() => server?.close());

/** Starts a job with `call`, then makes it say `snapshot` once the task id is out. */
async function callUntil(snapshot: Parameters<ScriptedAdapter["update"]>[1], ...flags: string[]) {
  const running = startCli(["call", server.url, "scripted_job", "--arg", "label=hostile", "--json", ...flags], {});
  const taskId = JSON.parse(await running.waitForLine(/"type":"task"/))["taskId"] as string;
  scripted.update(scripted.lastJob(), snapshot);
  return { taskId, done: running.done };
}

describe("the terminal client with an upstream that sends escape sequences", () => {
  it("call --json: the status message and the approval question reach stdout escaped, and read back whole", async () => {
    const { done } = await callUntil(inputRequiredSnapshot({ "approval-1": approvalRequest(hostile) }, hostile));
    const result = await done;
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).not.toMatch(unsafe);
    const lines = jsonLines(result.stdout);
    expect(lines.find((line) => line["type"] === "unanswered")!["unanswered"][0]["message"]).toContain(
      "Approve staging",
    );
  });

  it("for people: status, question, result and error show no escape, carriage return or bidi override", async () => {
    const asked = await callUntil(inputRequiredSnapshot({ "approval-1": approvalRequest(hostile) }, hostile));
    await asked.done;
    const get = await runCli(["task", "get", server.url, asked.taskId], {});
    expect(get.stdout).toContain("Approve staging");
    expect(get.stdout + get.stderr).not.toMatch(unsafe);
    const getJson = await runCli(["task", "get", server.url, asked.taskId, "--json"], {});
    expect(getJson.stdout).not.toMatch(unsafe);
    expect(JSON.parse(getJson.stdout)["statusMessage"]).toBe(hostile);

    scripted.update(scripted.lastJob(), {
      status: "completed",
      rawStatus: "success",
      message: hostile,
      result: { content: [{ type: "text", text: hostile }], structuredContent: { log: hostile } },
    });
    const watched = await runCli(["watch", server.url, asked.taskId], {});
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain("Deploy prod␍Approve staging <U+202E>yes");
    expect(watched.stdout + watched.stderr).not.toMatch(unsafe);

    const failed = await callUntil({
      status: "failed",
      rawStatus: "error",
      message: hostile,
      error: { code: -32603, message: hostile },
    });
    await failed.done;
    const human = await runCli(["watch", server.url, failed.taskId], {});
    expect(human.code).toBe(2);
    expect(human.stderr).toContain("Approve staging");
    expect(human.stdout + human.stderr).not.toMatch(unsafe);
  });

  it("an input request's key: task get, task answer (for people and --json) and call print it made safe", async () => {
    const requests = { [hostileKey]: approvalRequest("first"), [otherHostileKey]: approvalRequest("second") };
    const asked = await callUntil(inputRequiredSnapshot(requests));
    await asked.done;

    const get = await runCli(["task", "get", server.url, asked.taskId], {});
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain("input k<U+202E>x (elicitation/create): first");
    expect(get.stdout + get.stderr).not.toMatch(unsafe);

    const answers = JSON.stringify({ [hostileKey]: { approve: true } });
    const answered = await runCli(["task", "answer", server.url, asked.taskId, "--answers", answers], {});
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toContain("answered k<U+202E>x; still asked:\ninput other<U+202D>y: second");
    expect(answered.stdout + answered.stderr).not.toMatch(unsafe);

    // The first answer closed that question here; the second one is what is left to answer.
    const otherAnswers = JSON.stringify({ [otherHostileKey]: { approve: true } });
    const answeredJson = await runCli(
      ["task", "answer", server.url, asked.taskId, "--answers", otherAnswers, "--json"],
      {},
    );
    expect(answeredJson.code, answeredJson.stderr).toBe(0);
    expect(answeredJson.stdout).not.toMatch(unsafe);
    expect(JSON.parse(answeredJson.stdout)).toMatchObject({ type: "answered", inputKeys: [otherHostileKey] });

    // A "*" answer naming a field the form lacks is warned about, naming the request by its key.
    const called = await callUntil(
      inputRequiredSnapshot({ [hostileKey]: approvalRequest("third") }),
      "--answer",
      "colour=red",
    );
    const calledResult = await called.done;
    expect(calledResult.code, calledResult.stderr).toBe(4);
    expect(calledResult.stderr).toContain('warning: --answer colour: input k<U+202E>x has no field "colour"');
    expect(calledResult.stdout + calledResult.stderr).not.toMatch(unsafe);
    const followed = await runCli(["watch", server.url, called.taskId, "--answer", "colour=red"], {});
    expect(followed.code, followed.stderr).toBe(4);
    expect(followed.stderr).toContain('warning: --answer colour: input k<U+202E>x has no field "colour"');
    expect(followed.stdout + followed.stderr).not.toMatch(unsafe);
  });

  it("in a real terminal: the live line and the prompt's notes show stand-ins; title and clipboard stay as they were", async () => {
    const seen = { noLongerAsked: "", progressLine: "" };
    const run = await runInTmux(["call", server.url, "scripted_job", "--arg", "label=terminal"], {}, [
      {
        waitFor: /task jt1\./,
        send: async () => {
          scripted.update(scripted.lastJob(), inputRequiredSnapshot({ [hostileKey]: approvalRequest("Approve?") }));
          return "";
        },
      },
      {
        // The question goes away upstream while the prompt is open: the client says so, naming its key.
        waitFor: /fill in the form/,
        send: async () => {
          scripted.update(scripted.lastJob(), { status: "working", rawStatus: "running", message: hostile });
          return "";
        },
      },
      {
        waitFor: /is no longer asked/,
        send: async (screen) => {
          seen.noLongerAsked = screen;
          return "";
        },
      },
      {
        // The live line is redrawn about every 120 ms: let it redraw the hostile message a few times.
        waitFor: /Approve staging/,
        send: async (screen) => {
          seen.progressLine = screen;
          await sleep(800);
          scripted.update(scripted.lastJob(), completedSnapshot("all done"));
          return "";
        },
      },
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.title, run.screen).toBe(run.titleBefore);
    expect(run.clipboard, run.screen).toBe("");
    expect(seen.noLongerAsked).toContain("input k<U+202E>x is no longer asked");
    expect(seen.progressLine, seen.progressLine).toContain("working: Deploy prod␍Approve staging <U+202E>yes  ");
    expect(run.screen).toMatch(/✔ completed/);
  });
});
