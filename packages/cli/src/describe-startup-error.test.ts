import { describe, expect, it } from "vitest";
import { ClientError } from "./client/client-error.js";
import { describeStartupError } from "./describe-startup-error.js";

// What a terminal would act on: C0 controls but tab and newline, DEL, C1, bidi controls.
const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("the message of an error that ends a command", () => {
  it("is terminal-safe, stack and all: an unexpected error may quote the server", () => {
    const quoting = new Error("the server said \u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u0007done\u202Eok");
    const described = describeStartupError(quoting);
    expect(described).toMatch(/^jobtasks failed: Error: the server said done<U\+202E>ok\n\s+at /);
    expect(described).not.toMatch(unsafe);
    expect(describeStartupError(new ClientError("refused: \u009b2Jno"))).toBe("refused: no");
  });
});
