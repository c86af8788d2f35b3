import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { BearerTokens } from "./auth.js";

const aliceToken = "alice-token-0123456789";
const bobToken = "bob-token-abcdefghijkl";

describe("BearerTokens", () => {
  const tokens = BearerTokens.parse(`alice:${aliceToken}, bob:${bobToken}`);

  it("maps each token to its principal", () => {
    expect(tokens.authenticate(`Bearer ${aliceToken}`)).toBe("alice");
    expect(tokens.authenticate(`bearer ${bobToken}`)).toBe("bob");
    expect(tokens.principals).toEqual(["alice", "bob"]);
  });

  it("refuses missing, malformed and unknown credentials", () => {
    for (const header of [
      undefined,
      "",
      aliceToken,
      `Basic ${aliceToken}`,
      "Bearer ",
      `Bearer ${aliceToken}x`,
      `Bearer ${aliceToken} extra`,
    ]) {
      expect(tokens.authenticate(header)).toBeUndefined();
    }
  });

  it.each([
    ["", /name:token/],
    ["alice", /entry 1.*name:token/],
    [":tokentokentokentoken", /entry 1/],
    ["alice:short", /entry 1.*at least 16/],
    [`alice:${aliceToken},bob:${aliceToken}`, /entry 2.*also given to another name/],
    [`alice:${aliceToken},alice:${bobToken}`, /entry 2.*appears twice/],
    [`al ice:${aliceToken}`, /entry 1.*letters, digits/],
    [`local:${aliceToken}`, /entry 1.*"local" is reserved/],
  ])("rejects %j at start-up without echoing a token", (value, message) => {
    let error: unknown;
    try {
      BearerTokens.parse(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain("JOBTASKS_AUTH_TOKENS");
    for (const secret of [aliceToken, bobToken, "tokentokentokentoken"])
      expect((error as Error).message).not.toContain(secret);
  });
});
