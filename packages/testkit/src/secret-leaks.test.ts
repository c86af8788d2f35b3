import { describe, expect, it } from "vitest";
import { findSecretLeaks } from "./secret-leaks.js";

const secret = "ghp_secretToken1234567890";

describe("findSecretLeaks", () => {
  it("finds nothing in clean values", () => {
    const error = new Error("upstream answered 503", { cause: new Error("socket hang up") });
    expect(findSecretLeaks({ status: "working", message: "step 1/2" }, [secret], "snapshot")).toEqual([]);
    expect(findSecretLeaks(error, [secret], "error")).toEqual([]);
  });

  it("finds a secret in a message, naming it by position only", () => {
    const leaks = findSecretLeaks(new Error(`bad token ${secret}`), ["other-secret", secret], "error");
    expect(leaks).toContain("error: secrets[1] appears at message");
    expect(leaks.join("\n")).not.toContain(secret);
  });

  it("follows the cause chain, AggregateError members and own properties", () => {
    const deep = new Error("outer", {
      cause: new AggregateError(
        [
          new Error("fine"),
          Object.assign(new Error("request failed"), { request: { headers: { authorization: `token ${secret}` } } }),
        ],
        "several",
      ),
    });
    expect(findSecretLeaks(deep, [secret], "error")).toEqual([
      "error: secrets[0] appears at cause.errors[1].request.headers.authorization",
    ]);
  });

  it("looks inside URL and Headers objects and finds URL-encoded forms", () => {
    const password = "p@ss/word:1234";
    const url = new URL(`https://user:${encodeURIComponent(password)}@ci.example/jobs`);
    expect(findSecretLeaks({ url }, [password], "value")).toEqual(["value: secrets[0] appears at url"]);
    const headers = new Headers({ authorization: `Bearer ${secret}` });
    expect(findSecretLeaks({ headers }, [secret], "value")).toEqual([
      "value: secrets[0] appears at headers.headers.authorization",
    ]);
  });

  it("finds a secret quoted as JSON inside a text", () => {
    const password = 'pa"ss\\word-42';
    const message = `upstream answered 400: ${JSON.stringify({ password })}`;
    expect(message).not.toContain(password);
    expect(findSecretLeaks({ message }, [password], "value")).toEqual(["value: secrets[0] appears at message"]);
  });

  it("survives cycles", () => {
    const value: Record<string, unknown> = { text: secret };
    value.self = value;
    expect(findSecretLeaks(value, [secret], "value")).toEqual(["value: secrets[0] appears at text"]);
  });
});
