import { describe, expect, it } from "vitest";
import { sameSecret } from "./same-secret.js";

describe("sameSecret", () => {
  it("holds for the same text only, whatever the lengths", () => {
    expect(sameSecret("webhook-secret-0123456789", "webhook-secret-0123456789")).toBe(true);
    expect(sameSecret("webhook-secret-0123456788", "webhook-secret-0123456789")).toBe(false);
    expect(sameSecret("webhook", "webhook-secret-0123456789")).toBe(false);
    expect(sameSecret("", "webhook-secret-0123456789")).toBe(false);
    expect(sameSecret("Webhook-secret-0123456789", "webhook-secret-0123456789")).toBe(false);
  });
});
