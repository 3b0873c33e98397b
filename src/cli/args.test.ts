import { describe, expect, it } from "vitest";
import { type CliOptions, parseCli, UsageError } from "./args.ts";

function options(argv: string[], env: Record<string, string> = {}): CliOptions {
  const parsed = parseCli(argv, env);
  if (parsed.kind !== "run") throw new Error("expected run");
  return parsed.options;
}

describe("parseCli", () => {
  it("names the nearest option for a mistyped one", () => {
    expect(() => parseCli(["--prot", "4011"], {})).toThrow(/^unknown option --prot: did you mean --port\?$/);
    expect(() => parseCli(["--zzzzzz"], {})).toThrow(/^unknown option --zzzzzz$/);
  });

  it("defaults to the default scenario on 127.0.0.1:4010 with a real clock", () => {
    expect(options([])).toEqual({
      port: 4010,
      host: "127.0.0.1",
      scenario: "default",
      scenarioFile: null,
      snapshotFile: null,
      watch: false,
      seed: null,
      clock: "real",
      control: true,
      controlToken: null,
      rateLimitPerMinute: 300,
      latencyMs: 0,
      log: "pretty",
      stateFile: null,
      given: [],
      corsOrigins: ["*"],
      maxSandboxes: 100,
      sandboxTtlMs: null,
      instance: null,
    });
  });

  it("takes --watch with a scenario file only", () => {
    expect(options(["--scenario", "world.json", "--watch"]).watch).toBe(true);
    expect(() => options(["--watch"])).toThrow(/--watch watches a scenario file/);
    expect(() => options(["--scenario", "training", "--watch"])).toThrow(/--watch watches a scenario file/);
  });

  it("tells a built-in scenario's name from a scenario file, and refuses a snapshot with a scenario", () => {
    expect(options(["--scenario", "at-limits"])).toMatchObject({ scenario: "at-limits", scenarioFile: null });
    expect(options(["--scenario", "world.json"]).scenarioFile).toBe("world.json");
    expect(options(["--scenario", "./worlds/mine"]).scenarioFile).toBe("./worlds/mine");
    expect(options(["--from-snapshot", "saved.json"]).snapshotFile).toBe("saved.json");
    expect(() => options(["--scenario", "nope"])).toThrow(/Unknown scenario "nope".*FILE\.json/);
    expect(() => options(["--from-snapshot", "s.json", "--seed", "2"])).toThrow(/--from-snapshot starts/);
  });

  it("takes the sandbox flags: a limit, an idle lifetime with a unit, and an instance name", () => {
    const o = options(["--max-sandboxes", "5", "--sandbox-ttl", "30m", "--instance", "east1"]);
    expect([o.maxSandboxes, o.sandboxTtlMs, o.instance]).toEqual([5, 1_800_000, "east1"]);
    expect(options(["--sandbox-ttl", "90"]).sandboxTtlMs).toBe(90_000);
    expect(options(["--sandbox-ttl", "7d"]).sandboxTtlMs).toBe(604_800_000);
    expect(options(["--sandbox-ttl", "250ms"]).sandboxTtlMs).toBe(250);
  });

  it("takes --cors-origin, repeatable, and refuses what is not an origin", () => {
    expect(
      options(["--cors-origin", "http://localhost:5173", "--cors-origin", "https://app.example.com"])
        .corsOrigins,
    ).toEqual(["http://localhost:5173", "https://app.example.com"]);
    expect(options(["--cors-origin", "*"]).corsOrigins).toEqual(["*"]);
    expect(() => options(["--cors-origin", "localhost:5173"])).toThrow(/--cors-origin: .*not an origin/);
    expect(() => options(["--cors-origin", "http://localhost:5173/app"])).toThrow(
      /--cors-origin: .*not an origin/,
    );
  });

  it("takes --state-file and notes which flags a saved state would override", () => {
    expect(options(["--state-file", "/tmp/sim.json", "--seed", "3", "--rate-limit", "5"])).toMatchObject({
      stateFile: "/tmp/sim.json",
      seed: 3,
      given: ["seed", "rate-limit"],
    });
    expect(() => options(["--state-file", " "])).toThrow(/--state-file must not be empty/);
  });

  it("reads the control token from SIM_CONTROL_TOKEN; the flag wins, and --no-control ignores it", () => {
    expect(options([], { SIM_CONTROL_TOKEN: "t0k" })).toMatchObject({ controlToken: "t0k" });
    expect(options(["--control-token", "flag"], { SIM_CONTROL_TOKEN: "t0k" })).toMatchObject({
      controlToken: "flag",
    });
    expect(options(["--no-control"], { SIM_CONTROL_TOKEN: "t0k" })).toMatchObject({
      control: false,
      controlToken: null,
    });
    expect(options([], { SIM_CONTROL_TOKEN: "" })).toMatchObject({ controlToken: null });
  });

  it("reads PORT and HOST, and flags win over them", () => {
    expect(options([], { PORT: "5000", HOST: "0.0.0.0" })).toMatchObject({ port: 5000, host: "0.0.0.0" });
    expect(options(["--port", "0", "--host", "::1"], { PORT: "5000", HOST: "0.0.0.0" })).toMatchObject({
      port: 0,
      host: "::1",
    });
    expect(options([], { PORT: "", HOST: "" })).toMatchObject({ port: 4010, host: "127.0.0.1" });
  });

  it("takes every flag", () => {
    expect(
      options([
        "--scenario=training",
        "--seed",
        "42",
        "--clock",
        "manual",
        "--control-token",
        "t0k",
        "--rate-limit",
        "10",
        "--latency",
        "50-200",
        "--log",
        "json",
      ]),
    ).toMatchObject({
      scenario: "training",
      seed: 42,
      clock: "manual",
      control: true,
      controlToken: "t0k",
      rateLimitPerMinute: 10,
      latencyMs: [50, 200],
      log: "json",
    });
    expect(options(["--latency", "25"]).latencyMs).toBe(25);
    expect(options(["--no-control"]).control).toBe(false);
    expect(options(["--quiet", "--log", "json"]).log).toBeNull();
    expect(parseCli(["-h"], {})).toEqual({ kind: "help" });
  });

  it.each([
    [["--port", "abc"], /--port must be an integer/],
    [["--port", "70000"], /--port must be an integer from 0 to 65535/],
    [["--port", "-1"], /--port/],
    [["--port", "1.5"], /--port must be an integer/],
    [[], /PORT must be an integer/, { PORT: "http" }],
    [["--host", " "], /--host must not be empty/],
    [["--scenario", "nope"], /Unknown scenario "nope". Known scenarios: default, /],
    [["--seed", "x"], /--seed must be an integer/],
    [["--seed", "4294967296"], /--seed must be an integer from 0 to 4294967295/],
    [["--clock", "bogus"], /--clock must be "real" or "manual", not "bogus"/],
    [["--no-control", "--control-token", "t"], /--control-token makes no sense with --no-control/],
    [["--control-token", ""], /--control-token must not be empty/],
    [["--rate-limit", "0"], /--rate-limit must be an integer from 1/],
    [["--latency", "fast"], /--latency must be milliseconds/],
    [["--latency", "300-50"], /MIN <= MAX/],
    [["--log", "xml"], /--log must be "pretty" or "json"/],
    [["--max-sandboxes", "many"], /--max-sandboxes must be an integer/],
    [["--sandbox-ttl", "soon"], /--sandbox-ttl must be a duration such as 90s/],
    [["--sandbox-ttl", "0s"], /--sandbox-ttl must be from 1ms to 366d/],
    [["--instance", "East_1"], /--instance must be 1 to 16 characters a-z and 0-9/],
    [["--frobnicate"], /^unknown option --frobnicate$/],
    [["--port"], /--port/],
    [["extra"], /extra/],
  ] as [string[], RegExp, Record<string, string>?][])("rejects %j", (argv, message, env = {}) => {
    expect(() => parseCli(argv, env)).toThrow(UsageError);
    expect(() => parseCli(argv, env)).toThrow(message);
  });
});
