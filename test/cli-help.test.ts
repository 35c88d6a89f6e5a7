/**
 * The command line's help, version, suggestions and shell completion, as a user meets them at 80 columns.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliEnv, runFunes } from "./helpers/cli.js";
import { ROOT, tempDir } from "./helpers/fixtures.js";

let t: { dir: string; cleanup: () => void };
let env: CliEnv;
beforeAll(() => {
  t = tempDir();
  env = { home: t.dir, funesHome: join(t.dir, ".funes"), extra: { COLUMNS: "80" } };
});
afterAll(() => t.cleanup());

const COMMANDS = [
  "index",
  "status",
  "recall",
  "models",
  "push",
  "compact",
  "add",
  "remove",
  "ask",
  "curate",
  "scrub",
  "get",
  "sessions",
  "scan",
  "mcp",
  "cache",
  "doctor",
  "completion",
];

describe("help", () => {
  it("every command says what it does, shows examples, fits 80 columns and wraps between words", async () => {
    const main = await runFunes(["--help"], env);
    expect(main.code).toBe(0);
    for (const c of COMMANDS) expect(main.stdout, c).toMatch(new RegExp(`^  ${c} `, "m"));
    for (const c of COMMANDS) {
      const r = await runFunes([c, "--help"], env);
      expect(r.code, c).toBe(0);
      const lines = r.stdout.trimEnd().split("\n");
      // The first line is the description, not a version banner.
      expect(lines[0], c).not.toMatch(/^funes\/|^\s*$/);
      expect(r.stdout, c).toContain("\nExamples:\n  $ ");
      for (const line of lines) {
        expect(Array.from(line).length, `${c}: ${line}`).toBeLessThanOrEqual(80);
        expect(line, c).not.toMatch(/\s$/);
      }
      // A wrapped description continues with a whole word: no line ends or starts inside one.
      expect(r.stdout, c).not.toMatch(/[a-z]-\n\s+[a-z]/);
    }
    const index = await runFunes(["index", "--help"], env);
    expect(index.stdout).toMatch(/--no-thinking +Leave out thinking blocks\n/);
    expect(index.stdout).not.toContain("(default: true)");
    for (const c of ["models", "cache"]) {
      const r = await runFunes([c, "--help"], env);
      expect(r.stdout, c).toMatch(/\nActions:\n {2}status .*\n {2}(pull|prune) /);
    }
  });

  it("prints the version, and suggests the closest command or flag, named as typed", async () => {
    const v = await runFunes(["--version"], env);
    expect(v.stdout).toBe(
      `${JSON.parse(spawnSync("cat", [join(ROOT, "package.json")]).stdout.toString()).version}\n`,
    );
    const cmd = await runFunes(["recal", "x"], env);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toBe(
      'funes: unknown command "recal" — did you mean `funes recall`? (see funes --help)\n',
    );
    const flag = await runFunes(["recall", "x", "--half-lif", "3"], env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "funes: unknown option --half-lif — did you mean --half-life? (see funes recall --help)\n",
    );
    const kebab = await runFunes(["status", "--no-such-thing"], env);
    expect(kebab.stderr).toContain("unknown option --no-such-thing");
  });
});

describe("mistyped commands, flags and values", () => {
  /** One line on stderr, exit 2, nothing on stdout. */
  async function usage(args: string[]): Promise<string> {
    const r = await runFunes(args, env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
    return r.stderr.trimEnd();
  }

  it("suggests the command meant: any case, swapped letters, a common synonym; `help` shows help", async () => {
    expect(await usage(["RECALL", "x"])).toContain("did you mean `funes recall`?");
    expect(await usage(["serach", "x"])).toContain("did you mean `funes recall`?");
    expect(await usage(["publish", "a/b"])).toContain("did you mean `funes push`?");
    expect(await usage(["gc", "a/b"])).toContain("did you mean `funes compact`?");
    expect(await usage(["grep", "ENOSPC", "7028acdd"])).toContain("did you mean `funes scan`?");
    const help = await runFunes(["help", "recall"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Find past passages/);
    expect(await usage(["--hepl"])).toBe(
      "funes: unknown option --hepl — did you mean --help? (see funes --help)",
    );
  });

  it("a mistyped action, agent or shell names the one meant, before anything loads", async () => {
    expect(await usage(["models", "pul"])).toBe(
      'funes: funes models takes an action: status, pull, not "pul" — did you mean `funes models pull`?',
    );
    expect(await usage(["add", "claud"])).toContain("did you mean `funes add claude`?");
    expect(await usage(["server", "strt"])).toContain("did you mean `funes server start`?");
  });

  it("missing, extra and negative values say what the command takes, as typed", async () => {
    expect(await usage(["recall", "x", "--since"])).toBe(
      "funes: --since needs a value: --since <when> — see funes recall --help",
    );
    expect(await usage(["recall", "x", "-k", "-1"])).toContain('-k takes no negative value, not "-1"');
    expect(await usage(["recall", "x", "--since", "-7d"])).toContain(
      '--since takes no negative value, not "-7d"',
    );
    expect(await usage(["push"])).toBe(
      "funes: funes push needs <memory>: funes push <memory>, e.g. funes push acme/funes-memory --create — see funes push --help",
    );
    expect(await usage(["status", "extra"])).toBe(
      'funes: funes status takes no more words, got "extra" too — quote a value with spaces, or see funes status --help',
    );
  });

  it("numbers are plain digits: 1e9, 0x10 and 1.5 are refused, not read as something else", async () => {
    for (const k of ["1e9", "0x10", "1.5", "abc", "0"])
      expect(await usage(["recall", "x", "-k", k])).toBe(
        `funes: -k takes a whole number ≥ 1, not "${k}" — try -k 5`,
      );
    // gh's name for it, named as typed.
    expect(await usage(["recall", "x", "--limit", "0"])).toBe(
      'funes: --limit takes a whole number ≥ 1, not "0" — try --limit 5',
    );
    expect(await usage(["recall", "x", "-k", "3", "-k", "4"])).toBe(
      'funes: -k was given 2 times ("3", "4") — give it once',
    );
    expect(await usage(["get", "s", "t", "--window", "1e9"])).toContain(
      '--window takes a whole number ≥ 0, not "1e9"',
    );
    // A huge value is shortened in place: the line still ends with what to type.
    const huge = await usage(["recall", "x", "-k", "9".repeat(5000)]);
    expect(huge.length).toBeLessThan(400);
    expect(huge).toMatch(/\[cut: \d+ more characters\]" — try -k 5$/);
    expect(await usage([""])).toBe('funes: "" is not a command — run funes --help for the list');
    expect(await usage(["recall", "x", "--memory", ""])).toBe(
      "funes: --memory needs a value, not an empty one — see funes recall --help",
    );
  });
});

describe("funes completion", () => {
  it("completes commands, flags and agents in bash, and writes zsh and fish scripts", async () => {
    const bash = await runFunes(["completion", "bash"], env);
    expect(bash.code, bash.stderr).toBe(0);
    const script = join(t.dir, "funes.bash");
    writeFileSync(script, bash.stdout);
    const complete = (words: string[]) =>
      spawnSync(
        "bash",
        [
          "-c",
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _funes; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      ).stdout.trim();
    expect(complete(["funes", "rec"])).toBe("recall");
    expect(complete(["funes", "recall", "--half"])).toBe("--half-life");
    expect(complete(["funes", "add", "co"])).toBe("codex\ncopilot");
    expect(complete(["funes", "models", "p"])).toBe("pull");
    expect(complete(["funes", "server", "sto"])).toBe("stop");
    expect(complete(["funes", "recall", "--lim"])).toBe("--limit");
    expect(complete(["funes", "get", "--js"])).toBe("--json");
    const zsh = await runFunes(["completion", "zsh"], env);
    expect(zsh.stdout).toMatch(/^#compdef funes\n/);
    expect(zsh.stdout).toContain("compdef _funes funes");
    const fish = await runFunes(["completion", "fish"], env);
    expect(fish.stdout).toContain("complete -c funes -n '__fish_seen_subcommand_from recall' -l half-life");
    const bad = await runFunes(["completion", "tcsh"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('completion takes a shell: bash, zsh, fish, not "tcsh"');
  });
});
