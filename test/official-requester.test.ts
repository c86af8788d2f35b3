import { afterEach, describe, expect, it } from "vitest";
import { connectHttpRequester, answerElicitations } from "./support/requester.js";
import { Cleanup, startInProcessServer } from "./support/in-process-server.js";
import { completedSnapshot, createScriptedAdapter } from "./support/scripted-adapter.js";

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("the official requester against the scripted adapter", () => {
  it("settles a task that asks for approval", async () => {
    const scripted = createScriptedAdapter({
      onRespond: (job, responses) => {
        const answer = Object.values(responses)[0];
        job.snapshot = completedSnapshot(
          answer?.content?.["approve"] ? "approved" : "rejected",
          !answer?.content?.["approve"],
        );
      },
    });
    const server = cleanup.add(
      await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] }),
    );
    const elicitations = answerElicitations({ action: "accept", content: { approve: true } });
    const requester = cleanup.add(
      await connectHttpRequester({ url: server.url, onInputRequest: elicitations.handler }),
    );
    const execution = await requester.session.callTool("scripted_job", { label: "x", startAs: "input_required" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(elicitations.asked).toHaveLength(1);
    if (outcome.status !== "completed") return;
    expect(outcome.result).toMatchObject({ content: [{ type: "text", text: "approved" }] });
    expect(scripted.onlyJob().responses).toEqual([
      { "job-1-approval-1": { action: "accept", content: { approve: true } } },
    ]);
  });
});
