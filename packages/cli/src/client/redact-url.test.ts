import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlIn } from "./redact-url.js";

describe("redactUrl", () => {
  it("drops the user and password and hides each query value, keeping the rest", () => {
    expect(redactUrl("https://user:pass@host.example/mcp?token=abc&team=x")).toBe(
      "https://host.example/mcp?token=***&team=***",
    );
    expect(redactUrl("http://127.0.0.1:8080/mcp")).toBe("http://127.0.0.1:8080/mcp");
  });

  it("redacts the URL wherever an error message quotes it", () => {
    const url = "https://user:pass@host.example/mcp";
    expect(redactUrlIn(`Request cannot be constructed from a URL that includes credentials: ${url}`, url)).toBe(
      "Request cannot be constructed from a URL that includes credentials: https://host.example/mcp",
    );
  });
});
