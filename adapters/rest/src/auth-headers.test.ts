import { AdapterConfigError } from "@jobtasks/core";
import { describe, expect, it } from "vitest";
import { resolveAuth } from "./auth-headers.js";

describe("resolveAuth", () => {
  it("sends nothing without auth", () => {
    expect(resolveAuth({ type: "none" }, {})).toEqual({ headers: {}, secrets: [] });
  });

  it("reads a bearer token from the named variable, or inline", () => {
    expect(resolveAuth({ type: "bearer", tokenEnv: "API_TOKEN" }, { API_TOKEN: "tok-123456" })).toEqual({
      headers: { authorization: "Bearer tok-123456" },
      secrets: ["tok-123456"],
    });
    expect(resolveAuth({ type: "bearer", token: "inline-987654" }, {}).headers).toEqual({
      authorization: "Bearer inline-987654",
    });
  });

  it("builds basic credentials and redacts both the password and the encoded pair", () => {
    const auth = resolveAuth(
      { type: "basic", username: "robot", passwordEnv: "ROBOT_PASSWORD" },
      { ROBOT_PASSWORD: "pa55word!" },
    );
    expect(auth.headers).toEqual({ authorization: `Basic ${Buffer.from("robot:pa55word!").toString("base64")}` });
    expect(auth.secrets).toEqual(["pa55word!", Buffer.from("robot:pa55word!").toString("base64")]);
  });

  it("puts a key in its own header", () => {
    expect(resolveAuth({ type: "header", name: "X-Api-Key", valueEnv: "KEY" }, { KEY: "k-abcdef" })).toEqual({
      headers: { "x-api-key": "k-abcdef" },
      secrets: ["k-abcdef"],
    });
  });

  it("names the option and the variable when a secret is missing, never a value", () => {
    expect(() => resolveAuth({ type: "basic", usernameEnv: "ROBOT_USER", password: "x" }, {})).toThrow(
      new AdapterConfigError("auth.usernameEnv", "environment variable ROBOT_USER is not set"),
    );
    expect(() => resolveAuth({ type: "header", name: "X-Api-Key", valueEnv: "KEY" }, { KEY: "" })).toThrow(
      /auth\.valueEnv: environment variable KEY is not set/,
    );
    expect(() => resolveAuth({ type: "header", name: "X-Api-Key" }, {})).toThrow(
      /auth\.value: give auth\.value or auth\.valueEnv/,
    );
  });
});
