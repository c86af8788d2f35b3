import { describe, expect, it } from "vitest";
import { demoWalkthrough } from "./demo.js";

describe("the demo walkthrough", () => {
  it("tells how a client without the tasks extension follows a pipeline, with the three tools", () => {
    const text = demoWalkthrough("http://127.0.0.1:3100/mcp", "http://127.0.0.1:4100");
    expect(text).toContain("claude mcp add --transport http jobtasks-demo http://127.0.0.1:3100/mcp");
    expect(text).toMatch(/Without it \(Claude Code[^)]*\):\n\s+- the call answers with a handle/);
    for (const tool of ["task_status", "task_answer", "task_cancel"]) expect(text).toContain(tool);
  });
});
