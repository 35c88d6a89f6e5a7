import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BadArgumentError, FunesError, type FunesErrorCode, NEXT_STEP } from "../commands/index.js";
import { IncompatibleMemoryError } from "../local/index.js";
import { WriterBusyError } from "../memory/index.js";
import { EXIT, failureReport } from "./error-policy.js";
import { UsageError } from "./usage-error.js";

/** What undici throws when a connection fails: a bare "fetch failed" with the reason in its cause. */
const fetchFailed = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ${code}`), { code }) });

/** A Hub client error: the status and the URL it was for. */
const hubError = (statusCode: number, message: string) =>
  Object.assign(new Error(message), { statusCode, url: "https://hub.example/api/repos/create" });

const report = (err: unknown, debug = false) => failureReport(err, { debug, hubUrl: "https://hub.example" });

describe("failureReport", () => {
  it("gives every meaning an exit code and a next step", () => {
    const codes = Object.keys(NEXT_STEP) as FunesErrorCode[];
    expect(codes.length).toBeGreaterThanOrEqual(12);
    for (const code of codes) {
      expect(EXIT[code], code).toBeTypeOf("number");
      expect(NEXT_STEP[code], code).toMatch(/^[a-z`].*[^.]$/);
    }
    // The exit numbers users and hooks branch on (docs/exit-codes.md).
    expect([EXIT.busy, EXIT.bad_input, EXIT.declined, EXIT.held_back, EXIT.no_access]).toEqual([
      75, 2, 2, 2, 1,
    ]);
  });

  it("prints a FunesError's own line and its meaning's exit code", () => {
    expect(report(new FunesError("declined", "nothing was forgotten — re-run with --yes"))).toEqual({
      text: "funes: nothing was forgotten — re-run with --yes\n",
      exitCode: 2,
    });
    expect(report(new FunesError("busy", "another funes is indexing — try again")).exitCode).toBe(75);
    const bad = new BadArgumentError({ arg: "since", flag: "--since", value: "x", problem: "is not a date" });
    expect(report(bad)).toEqual({ text: 'funes: --since "x" is not a date\n', exitCode: 2 });
    expect(report(new UsageError('unknown command "recal" — did you mean recall?')).exitCode).toBe(2);
  });

  it("reads a network failure no command caught by its cause: offline, with the host and the reason", () => {
    const r = report(fetchFailed("ECONNREFUSED"));
    expect(r.exitCode).toBe(1);
    expect(r.text).toBe(
      `funes: the Hub request failed (hub.example: connection refused) — ${NEXT_STEP.unreachable}\n`,
    );
    expect(report(fetchFailed("CERT_HAS_EXPIRED")).text).toContain("TLS: certificate expired");
  });

  it("maps a Hub answer once: 401 no access, 403 refused, 404 not found, 503 offline", () => {
    expect(report(hubError(401, "Invalid credentials")).text).toContain(NEXT_STEP.no_access);
    expect(report(hubError(403, "no rights to that namespace")).text).toBe(
      `funes: the Hub request failed (HTTP 403: no rights to that namespace) — ${NEXT_STEP.hub_refused}\n`,
    );
    expect(report(hubError(404, "Repository not found")).text).toContain(NEXT_STEP.no_memory);
    expect(report(hubError(503, "")).text).toContain(NEXT_STEP.unreachable);
  });

  it("knows the lower layers' own refusals by type, and keeps their words", () => {
    expect(report(new WriterBusyError())).toEqual({
      text: "funes: another funes memory operation is in progress; retry in a moment\n",
      exitCode: 75,
    });
    const other = report(
      new IncompatibleMemoryError('memory at "/m" was built with a different embedding model'),
    );
    expect(other).toEqual({
      text: 'funes: memory at "/m" was built with a different embedding model\n',
      exitCode: 1,
    });
  });

  it("calls anything else unexpected, on one line, with no stack unless debugging", () => {
    const bug = new RangeError("Invalid time value\nsecond line");
    const plain = report(bug);
    expect(plain.exitCode).toBe(1);
    expect(plain.text).toBe(
      "funes: unexpected error: RangeError: Invalid time value — run it again with FUNES_DEBUG=1 to see where, and report it if it keeps happening\n",
    );
    // A TypeError without a network cause is a bug, not the Hub being offline.
    expect(report(new TypeError("Invalid URL")).text).toContain("unexpected error: TypeError: Invalid URL");
    const debug = report(new FunesError("unreachable", "could not push — try again", bug), true).text;
    expect(debug.split("\n")[0]).toBe("funes: could not push — try again");
    expect(debug).toMatch(/\n {4}at /);
    expect(debug).toContain("caused by: RangeError: Invalid time value");
  });

  it("never lets a control character reach the terminal raw", () => {
    expect(report(new FunesError("no_memory", "no memory at \x1b[31mred — check")).text).not.toContain(
      "\x1b",
    );
  });
});

describe("docs/exit-codes.md", () => {
  it("gives every meaning the exit code the CLI uses, and no meaning the CLI does not have", () => {
    const doc = readFileSync(new URL("../../docs/exit-codes.md", import.meta.url), "utf8");
    const byMeaning = doc.slice(doc.indexOf("## By meaning"));
    const rows = [...byMeaning.matchAll(/^\| `([a-z_]+)`[^|]* \| (\d+) \|$/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    expect(Object.fromEntries(rows)).toEqual(EXIT);
    expect(rows).toHaveLength(Object.keys(EXIT).length);
    // The codes the first table explains are the ones there are.
    const codes = [...doc.matchAll(/^\| `(\d+)` \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual([...new Set([0, ...Object.values(EXIT)])].sort((a, b) => a - b));
  });
});
