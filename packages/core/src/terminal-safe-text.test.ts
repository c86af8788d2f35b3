import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeJson } from "./terminal-safe-text.js";

const esc = "\u001b";
const bel = "\u0007";

describe("terminalSafe", () => {
  it("removes colour codes, screen clears, title and clipboard writes, and DCS/APC strings", () => {
    expect(terminalSafe(`${esc}[31mred${esc}[0m done`)).toBe("red done");
    expect(terminalSafe(`before${esc}[2J${esc}[Hafter`)).toBe("beforeafter");
    expect(terminalSafe(`${esc}]0;owned${bel}deploy`)).toBe("deploy");
    expect(terminalSafe(`${esc}]52;c;ZWNobyBoaQ==${esc}\\copy`)).toBe("copy");
    expect(terminalSafe(`${esc}P1$r${esc}\\ok ${esc}_app${esc}\\ ${esc}(B${esc}7end`)).toBe("ok  end");
  });

  it("removes the 8-bit C1 forms of CSI and OSC as the ESC forms", () => {
    expect(terminalSafe("a\u009b2Jb")).toBe("ab");
    expect(terminalSafe(`a\u009d0;title${bel}b`)).toBe("ab");
  });

  it("removes an unterminated string sequence to the end, as a terminal would swallow it", () => {
    expect(terminalSafe(`Approve prod?${esc}]0;Approve staging`)).toBe("Approve prod?");
  });

  it("shows a carriage return, other C0 controls, DEL, C1 and bidi controls as visible stand-ins", () => {
    expect(terminalSafe("Deploy to prod\rDeploy to staging")).toBe("Deploy to prod␍Deploy to staging");
    expect(terminalSafe(`bell${bel} backspace\b nul\u0000 del\u007f lone ${esc}`)).toBe(
      "bell␇ backspace␈ nul␀ del␡ lone ␛",
    );
    expect(terminalSafe("next line\u0085")).toBe("next line<U+0085>");
    expect(terminalSafe("file\u202Etxt.exe \u2066isolated\u2069")).toBe("file<U+202E>txt.exe <U+2066>isolated<U+2069>");
  });

  it("keeps newlines, tabs and ordinary Unicode; a CRLF is a newline", () => {
    expect(terminalSafe("line 1\r\n\tline 2 ✔ café 日本\n")).toBe("line 1\n\tline 2 ✔ café 日本\n");
  });
});

describe("terminalSafeJson", () => {
  it("escapes every control the terminal would act on and reads back to the same value", () => {
    const value = { message: `x${esc}]52;c;AAAA${bel} \u009b2J \u202E \u2028 \r`, list: ["\u0085"] };
    const line = terminalSafeJson(value);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(line)).toEqual(value);
  });
});
