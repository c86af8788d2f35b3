import { describe, expect, it } from "vitest";
import { cleanTrace } from "./tail-job-trace.js";

describe("cleanTrace", () => {
  it("keeps what a line finally showed, without colours or section markers", () => {
    const raw =
      "section_start:1700000000:build\r\u001b[0K\u001b[32;1m$ make\u001b[0;m\r\n50%\r100%\nsection_end:1700000001:build\r\u001b[0K";
    expect(cleanTrace(raw)).toBe("$ make\n100%\n");
  });

  it("removes title, clipboard and screen escapes and shows bidi overrides and other controls", () => {
    const raw = "\u001b]0;owned\u0007\u001b]52;c;ZWNobw==\u001b\\\u001b[2Jdeploy \u202Eyes\u009b2J\u0008\n";
    expect(cleanTrace(raw)).toBe("deploy <U+202E>yes␈\n");
  });
});
