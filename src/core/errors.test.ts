import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.ts";

describe("ApiError", () => {
  it("is an Error that renders itself as the envelope", () => {
    const e = new ApiError(404, "Audience not found", { code: "TEAM_REQUIRED" });
    expect(e).toBeInstanceOf(Error);
    expect(e.toEnvelope("/api/v1/audiences/a")).toEqual({
      statusCode: 404,
      statusMessage: "Audience not found",
      message: "Audience not found",
      url: "/api/v1/audiences/a",
      error: true,
      data: { code: "TEAM_REQUIRED" },
    });
  });

  it("captures no stack (a refusal is an answer), and leaves other errors theirs", () => {
    const before = Error.stackTraceLimit;
    expect(new ApiError(429).stack).toBe("ApiError: Too many requests. Please try again later.");
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("bug").stack).toMatch(/\n\s+at /);
  });
});
