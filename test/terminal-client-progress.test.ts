import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startInProcessServer, type InProcessServer } from "./support/in-process-server.js";
import { createScriptedAdapter, type ScriptedAdapter } from "./support/scripted-adapter.js";
import { jsonLines, startCli } from "./support/terminal-client.js";

/** The progress an adapter reports (`snapshot.progress`) reaches the terminal client, whatever the message says. */

vi.setConfig({ testTimeout: 60_000 });

let scripted: ScriptedAdapter;
let server: InProcessServer;
beforeAll(async () => {
  scripted = createScriptedAdapter({ pollIntervalMs: 20 });
  server = await startInProcessServer({ adapters: [{ name: "scripted", adapter: scripted.adapter }] });
});
afterAll(() => server?.close());

describe("the progress field of a snapshot", () => {
  it("reaches call --json as the task line's progress, though the message has no step N/M or percent", async () => {
    const running = startCli(["call", server.url, "scripted_job", "--json", "--timeout", "3s"], {});
    await running.waitForLine(/"type":"task"/);
    scripted.update(scripted.lastJob(), {
      status: "working",
      rawStatus: "running",
      message: "compiling",
      progress: { progress: 3, total: 4 },
    });
    await running.waitForLine(/"statusMessage":"compiling"/);
    const result = await running.done;
    const line = jsonLines(result.stdout).find((entry) => entry["statusMessage"] === "compiling");
    expect(line).toMatchObject({ progress: { progress: 3, total: 4 } });
  });
});
