import { describe, expect, it } from "vitest";
import { flattenHeaders } from "./flatten-headers.js";

describe("flattenHeaders", () => {
  it("gives one string per header, under its lower-case name", () => {
    expect(
      flattenHeaders({
        "Content-Type": "application/json",
        "retry-after": "120",
        via: ["1.1 proxy-a", "1.1 proxy-b"],
        "x-absent": undefined,
      }),
    ).toEqual({ "content-type": "application/json", "retry-after": "120", via: "1.1 proxy-a, 1.1 proxy-b" });
  });

  it("keeps an empty value, which is not an absent header", () => {
    expect(flattenHeaders({ "x-empty": "", "x-none": [] })).toEqual({ "x-empty": "", "x-none": "" });
  });
});
