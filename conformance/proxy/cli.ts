/**
 * `audience-research-sim proxy --upstream URL`: the validating proxy on the command line. It listens,
 * forwards everything to the upstream, prints each violation as it happens, serves the live report at
 * `/__proxy/`, and on SIGINT or SIGTERM writes the JSON, JUnit and HTML reports and exits: 0 when no
 * violation of the sides `--fail-on` names was seen, 1 otherwise, 2 on bad usage.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { type Contract, createContract, ownContract } from "../../src/contract/contract.ts";
import { withContract } from "../lib/description/contract.ts";
import { loadContract } from "../lib/description/load-contract.ts";
import { paint } from "../lib/reporting/colour.ts";
import { userDir } from "../lib/reporting/paths.ts";
import type { ProxyOptions } from "./proxy.ts";

const USAGE = `Usage: audience-research-sim proxy --upstream URL [options]
       (in a clone of the repository: npm run proxy -- --upstream URL [options])

Forwards every request to the upstream unchanged and checks each exchange against the contract and the
API description: the client's request, the upstream's answer, and what a key's sequence of exchanges
shows. Violations are printed as they happen; the report is live at http://HOST:PORT/__proxy/.

Options:
  --upstream URL       the API to forward to: a deployment, or a simulator (its sandboxes included)
  --port P             port to listen on (default 4020; 0 picks a free one)
  --host H             address to listen on (default 127.0.0.1)
  --fail-on SIDE        whose violations count: upstream (the API's answers), client (its requests and
                       its sequences of calls) or any (default); sets the exit status and what
                       --errors turns into 502. Every finding is reported either way, with its side
  --errors             answer an exchange that breaks a rule of a counted side with a 502 in the error
                       envelope naming it (for CI); by default the proxy only reports
  --contract FILE|URL  judge by this version of openapi.json instead of the one the package ships with
  --report DIR         where the reports go on exit (default reports/): proxy-report.json,
                       proxy-junit.xml, proxy-report.html
  --record FILE        on exit, write the world the traffic showed as a scenario document
                       (serve it with: audience-research-sim serve --scenario FILE)
  --quiet              do not print violations as they happen
  -h, --help           this text

Also served while it runs: /__proxy/report (JSON), /__proxy/report.xml (JUnit).
Exit status (on SIGINT or SIGTERM): 0 no violation of a counted side seen; 1 at least one; 2 bad usage.
`;

interface Options {
  upstream: string;
  port: number;
  host: string;
  errors: boolean;
  failOn: "upstream" | "client" | "any";
  contract: string | null;
  report: string;
  record: string | null;
  quiet: boolean;
}

function parse(argv: string[]): Options | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      errors: { type: "boolean" },
      "fail-on": { type: "string" },
      contract: { type: "string" },
      report: { type: "string" },
      record: { type: "string" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const upstream = values.upstream;
  if (!upstream || !/^https?:\/\/[^/\s]+/.test(upstream))
    throw new Error(
      `--upstream must be an http(s) URL${upstream ? `, got ${JSON.stringify(upstream)}` : ""}`,
    );
  const failOn = values["fail-on"] ?? "any";
  if (failOn !== "upstream" && failOn !== "client" && failOn !== "any")
    throw new Error(`--fail-on must be upstream, client or any, got ${JSON.stringify(failOn)}`);
  const port = Number(values.port ?? 4020);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0..65535, got ${values.port}`);
  return {
    upstream,
    port,
    host: values.host ?? "127.0.0.1",
    errors: Boolean(values.errors),
    failOn,
    contract: values.contract ?? null,
    report: resolve(userDir(), values.report ?? "reports"),
    record: values.record ? resolve(userDir(), values.record) : null,
    quiet: Boolean(values.quiet),
  };
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  let o: Options | "help";
  try {
    o = parse(argv);
  } catch (e) {
    process.stderr.write(`proxy: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (o === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  let contract: Contract = ownContract;
  if (o.contract) {
    try {
      contract = createContract(await loadContract(o.contract));
    } catch (e) {
      process.stderr.write(`proxy: --contract ${o.contract}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  // The host and the report pages load only when the proxy starts (usage errors answer at once).
  const [{ serveProxy }, { counts }, { junitOf }, { renderProxyPage }] = await Promise.all([
    import("./host.ts"),
    import("./proxy.ts"),
    import("./junit.ts"),
    import("./page.ts"),
  ]);
  const c = paint();
  const options = o;
  const settings: ProxyOptions = {
    upstream: o.upstream,
    contract,
    record: o.record !== null,
    errors: o.errors,
    failOn: o.failOn,
    onError: (e) => process.stderr.write(`proxy: an exchange could not be judged: ${(e as Error).message}\n`),
    onFinding: (f) => {
      if (options.quiet) return;
      // The operation, unless the message already names it.
      const op = f.operation?.operationId;
      const where = op && !f.message.includes(op) ? `${op}: ` : "";
      const mark = counts(options.failOn, f) ? c.bad("✗") : "·";
      process.stdout.write(
        `${mark} [${f.side}: ${f.who}] ${f.ruleId ?? f.check}: ${where}${f.message}\n${f.curl ? `  ${f.curl}\n` : ""}`,
      );
    },
  };
  let server: Awaited<ReturnType<typeof serveProxy>>;
  try {
    server = await serveProxy({ ...settings, port: o.port, host: o.host });
  } catch (e) {
    process.stderr.write(`proxy: cannot listen on ${o.host}:${o.port}: ${(e as Error).message}\n`);
    return 2;
  }
  process.stdout.write(
    `proxy: ${server.url} → ${o.upstream}${o.errors ? ` (--errors: exchanges that break a rule of ${o.failOn === "any" ? "either side" : `the ${o.failOn} side`} become 502)` : ""}; report at ${server.url}/__proxy/\n`,
  );
  return new Promise<number>((done) => {
    const stop = async () => {
      await server.close();
      const r = server.judge.report;
      const files = {
        "proxy-report.json": `${JSON.stringify(r, null, 2)}\n`,
        "proxy-junit.xml": junitOf(r),
        "proxy-report.html": withContract(contract, () => renderProxyPage(r, false)),
      };
      for (const [name, text] of Object.entries(files)) {
        const file = resolve(options.report, name);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, text);
      }
      if (options.record && server.recorder) {
        mkdirSync(dirname(options.record), { recursive: true });
        writeFileSync(options.record, `${JSON.stringify(server.recorder.document(), null, 2)}\n`);
        process.stdout.write(`\nproxy: recorded the world the traffic showed in ${options.record}\n`);
        for (const note of server.recorder.notes()) process.stdout.write(`  ${note}\n`);
      }
      const client = r.violations.filter((f) => f.side === "client").length;
      const counted = r.violations.filter((f) => counts(options.failOn, f)).length;
      process.stdout.write(
        `\nproxy: ${r.exchanges} exchanges, ${r.violations.length} violations (${r.violations.length - client} upstream, ${client} client; --fail-on ${options.failOn} counts ${counted}); reports in ${options.report}\n`,
      );
      done(counted > 0 ? 1 : 0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

// Run directly (`npm run proxy`, tsx), not when the kit's command line loads this module for `proxy`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`proxy: ${(e as Error).stack ?? e}\n`);
      process.exit(2);
    },
  );
