import { cac } from "cac";
import { describe, expect, it } from "vitest";
import { settleOptionValues } from "./option-values.js";
import { UsageError } from "./usage-error.js";

/** A cac CLI shaped like funes's, parsed as app.ts parses it. */
function parsed(args: string[]) {
  const cli = cac("funes");
  cli.command("forget [...turn]").option("--match <text>", "").option("--session <id>", "");
  cli
    .command("recall [...query]")
    .option("-k, --k <n>", "")
    .option("--memory <spec>", "")
    .option("--json", "");
  cli.command("status").option("--memory <spec>", "");
  cli.parse(["node", "funes", ...args], { run: false });
  settleOptionValues(cli, args);
  return cli.options as Record<string, unknown>;
}

describe("option values reach commands as typed", () => {
  it("keeps digit-like strings as the user wrote them (cac alone turns them into numbers)", () => {
    expect(parsed(["forget", "--match", "007"]).match).toBe("007");
    expect(parsed(["forget", "--match", "1e3"]).match).toBe("1e3");
    expect(parsed(["forget", "--match=0x10"]).match).toBe("0x10");
    expect(parsed(["forget", "--session", "0123", "--session", "9"]).session).toEqual(["0123", "9"]);
    expect(parsed(["recall", "x", "-k", "1e9"]).k).toBe("1e9");
    expect(parsed(["recall", "x", "--memory", "a/b", "--memory", "c/d"]).memory).toEqual(["a/b", "c/d"]);
    // Words after `--` are the query's, not option values.
    expect(parsed(["recall", "--", "-k", "5"]).k).toBeUndefined();
  });

  it("refuses a blank value, a single-valued option given twice, and two memories where one is read", () => {
    expect(() => parsed(["forget", "--match", ""])).toThrow(
      new UsageError("--match needs a value, not an empty one — see funes forget --help"),
    );
    expect(() => parsed(["recall", "x", "-k", "3", "-k", "4"])).toThrow(
      new UsageError('-k was given 2 times ("3", "4") — give it once'),
    );
    expect(() => parsed(["status", "--memory", "a/b,c/d"])).toThrow(
      new UsageError('funes status reads one memory, and --memory "a/b,c/d" names 2 — run it once for each'),
    );
    expect(parsed(["status", "--memory", "local,"]).memory).toBe("local");
  });
});
