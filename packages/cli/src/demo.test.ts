import { describe, expect, it } from "vitest";
import { demoWalkthrough } from "./demo.js";

describe("the demo walkthrough", () => {
  it("tells how a client without the tasks extension follows a pipeline, with the three tools", () => {
    const text = demoWalkthrough("http://127.0.0.1:3100/mcp", "http://127.0.0.1:4100");
    expect(text).toContain("claude mcp add --transport http jobtasks-demo http://127.0.0.1:3100/mcp");
    expect(text).toMatch(/Without it \(Claude Code[^)]*\):\n\s+- the call waits up to 3 s, then answers with a handle/);
    // The example asks for approval within those 3 s: its first answer is the question, not a bare handle.
    expect(text).toContain("with its approval question and the task_answer call when it asked one by then");
    for (const tool of ["task_status", "task_answer", "task_cancel"]) expect(text).toContain(tool);
  });
});
