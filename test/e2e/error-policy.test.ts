import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, type CliResult, hubUser, runFunes } from "../helpers/cli.js";
import { TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, startHubStandin } from "../helpers/hub-standin.js";
import { writeSyntheticHistory } from "../helpers/synth.js";

const TOKEN = "hf_standintokenforerrorpolicy";
let t: { dir: string; cleanup: () => void };
let hub: HubStandin;
let writer: CliEnv;

function env(name: string, hfCache = TEST_HUB_CACHE): CliEnv {
  return hubUser({ dir: t.dir, name, hubUrl: hub.url, token: TOKEN, hfCache });
}

/** A reader with an HF cache of its own, so what it reads is downloaded. */
const reader = (name: string) => env(name, join(t.dir, `${name}-hf`));

/**
 * The written style every failure keeps: exactly one line on stderr, `funes: ` then what failed, a ` — `
 * before the next step, and no stack frame.
 */
function expectOneClearLine(r: CliResult, code: number): string {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr.endsWith("\n"), r.stderr).toBe(true);
  const lines = r.stderr.slice(0, -1).split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  const line = lines[0] as string;
  expect(line).toMatch(/^funes: \S/);
  expect(line).toContain(" — ");
  expect(line).not.toMatch(/\bat .*\.js:\d+|Error:/);
  return line.slice("funes: ".length);
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
  writer = env("w");
  writeSyntheticHistory(writer.home, 1, 0);
  expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
  const first = await runFunes(["push", "acme/errs", "--create"], writer);
  expect(first.code, first.stderr).toBe(0);
  hub.repos.set("acme/csv", {
    type: "dataset",
    commit: "c".repeat(40),
    files: new Map([["data.csv", Buffer.from("a,b\n1,2\n")]]),
  });
  hub.repos.set("acme/junk", {
    type: "dataset",
    commit: "d".repeat(40),
    files: new Map([
      ["chunks.lance/_versions/1.manifest", Buffer.from("not a manifest at all, just text")],
      ["chunks.lance/data/a.lance", Buffer.from("junk")],
    ]),
  });
});
afterAll(async () => {
  hub.fault = null;
  await hub.close();
  t.cleanup();
});

describe("failures a user meets end in one clear line and the exit code of their meaning", () => {
  it("a connection cut while push reads the remote: offline, names the host and the cause (exit 1)", async () => {
    writeSyntheticHistory(writer.home, 1, 1);
    expect((await runFunes(["index", "--yes"], writer)).code).toBe(0);
    const head = hub.repos.get("acme/errs")?.commit;
    hub.fault = (method, path) => (method === "GET" && path.includes("/resolve/") ? "drop" : null);
    try {
      const line = expectOneClearLine(await runFunes(["push", "acme/errs"], writer), 1);
      expect(line).toContain("became unreachable while pushing");
      expect(line).toContain(`${new URL(hub.url).host}: connection closed`);
      expect(line).not.toContain("fetch failed");
    } finally {
      hub.fault = null;
    }
    expect(hub.repos.get("acme/errs")?.commit).toBe(head);
  });

  it("with FUNES_DEBUG=1 the same failure also prints the stack, down its causes", async () => {
    hub.fault = (method, path) => (method === "GET" && path.includes("/resolve/") ? "drop" : null);
    try {
      const r = await runFunes(["push", "acme/errs"], {
        ...writer,
        extra: { ...writer.extra, FUNES_DEBUG: "1" },
      });
      expect(r.code).toBe(1);
      expect(r.stderr.split("\n")[0]).toContain("became unreachable while pushing");
      expect(r.stderr).toMatch(/\n {4}at /);
      expect(r.stderr).toContain("caused by: ");
    } finally {
      hub.fault = null;
    }
  });

  it("push --create refused with 403: refused by the Hub, says what to do (exit 1), creates nothing", async () => {
    hub.fault = (method, path) => (method === "POST" && path === "/api/repos/create" ? "forbid" : null);
    try {
      const line = expectOneClearLine(await runFunes(["push", "acme/denied", "--create"], writer), 1);
      expect(line).toContain("the Hub refused to create hf://datasets/acme/denied");
      expect(line).toContain("HTTP 403");
    } finally {
      hub.fault = null;
    }
    expect(hub.repos.has("acme/denied")).toBe(false);
  });

  it("a dataset that is not a funes memory: no index there, or refused as not Lance (exit 1)", async () => {
    const csv = expectOneClearLine(await runFunes(["recall", "x", "--memory", "acme/csv"], reader("r1")), 1);
    expect(csv).toContain("hf://datasets/acme/csv exists on the Hub but holds no index yet");
    const junk = expectOneClearLine(
      await runFunes(["recall", "x", "--memory", "acme/junk"], reader("r2")),
      1,
    );
    expect(junk).toContain("chunks.lance/_versions/1.manifest is not a Lance manifest");
    const status = expectOneClearLine(await runFunes(["status", "--memory", "acme/junk"], reader("r3")), 1);
    expect(status).toBe(
      "hf://datasets/acme/junk: chunks.lance/_versions/1.manifest is not a Lance manifest — funes opens nothing outside a memory's own files",
    );
    // forget reads the remote through another path; no command catches the refusal there, the policy does.
    const forget = await runFunes(["forget", "--memory", "acme/junk", "--session", "s1", "--yes"], writer);
    expect(expectOneClearLine(forget, 1)).toContain(
      "chunks.lance/_versions/1.manifest is not a Lance manifest",
    );
  });

  it("--since 99999999999999999999d: bad input naming the flag (exit 2), for recall and forget", async () => {
    const since = ["--since", "99999999999999999999d"];
    const recall = await runFunes(["recall", "x", ...since], writer);
    expect(recall.code, recall.stderr).toBe(2);
    expect(recall.stderr).toBe(
      'funes: --since "99999999999999999999d" is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)\n',
    );
    const forget = await runFunes(["forget", ...since, "--yes"], writer);
    expect(forget.code, forget.stderr).toBe(2);
    expect(forget.stderr).toContain('--since "99999999999999999999d" is not a date');
  });

  it("the MCP server says the CLI's sentence as a tool error (isError), without a stack", async () => {
    const cli = await runFunes(["status", "--memory", "acme/junk"], reader("r4"));
    const sentence = cli.stderr.replace(/^funes: /, "").trimEnd();
    const r = reader("r5");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: r.home,
        FUNES_HOME: r.funesHome,
        FUNES_SERVER: "0",
        FUNES_THREADS: "1",
        ...r.extra,
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "funes-test", version: "0" });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as {
          content: { text: string }[];
          isError?: boolean;
        };
      const status = await call("status", { memory: "acme/junk" });
      expect(status.isError).toBe(true);
      expect(status.content[0]?.text).toBe(`status error: ${sentence}`);
      const recall = await call("recall", { query: "x", since: "99999999999999999999d" });
      expect(recall.isError).toBe(true);
      expect(recall.content[0]?.text).toBe(
        'recall error: since "99999999999999999999d" is not a date (2026-06-01), a timestamp (2026-06-01T12:00:00Z) or a span back from now (90m, 12h, 7d, 2w)',
      );
    } finally {
      await client.close();
    }
  });
});

describe("memory specs in the wrong shape are refused with the shape to write (exit 2), before any request", () => {
  it("a bare owner, another repo type, a web address, a revision, ~user, a file", async () => {
    const file = join(t.dir, "a-file");
    writeFileSync(file, "not a memory");
    const cases: [string[], string][] = [
      [
        ["status", "--memory", "org/"],
        '"org/" is not a memory: a Hub memory is owner/name — write owner/name',
      ],
      [["recall", "x", "--memory", "hf://models/x/y"], "not models — write hf://datasets/x/y"],
      [
        ["push", "models/x/y"],
        '"models/x/y" is not a memory: memories are Hub datasets, not models — write x/y',
      ],
      [
        ["status", "--memory", "https://huggingface.co/datasets/acme/m/tree/main"],
        "it is a web address — write acme/m",
      ],
      [["status", "--memory", "acme/m@main"], 'funes always reads a memory\'s newest commit — drop "@main"'],
      [["status", "--memory", "~nobody/m"], "funes expands only ~/ (your own home) — write the full path"],
      [
        ["recall", "x", "--memory", file],
        `"${file}" is not a memory: it is a file — write the folder that holds chunks.lance`,
      ],
      [
        ["status", "--memory", "local,acme/m"],
        'funes status reads one memory, and --memory "local,acme/m" names 2',
      ],
    ];
    const requests = hub.requests.length;
    for (const [args, message] of cases)
      expect(expectOneClearLine(await runFunes(args, writer), 2)).toContain(message);
    expect(hub.requests.length).toBe(requests);
  });

  it("the memory's own folder, its table folder, a trailing slash and datasets/owner/name all read it", async () => {
    const memory = join(writer.funesHome, "memory");
    for (const spec of [memory, `${memory}/`, join(memory, "chunks.lance"), "local,"]) {
      const r = await runFunes(["status", "--memory", spec], writer);
      expect(r.code, `${spec}: ${r.stderr}`).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe(`memory: ${memory}`);
    }
    const viaPath = await runFunes(["status", "--memory", "datasets/acme/errs"], reader("r6"));
    expect(viaPath.code, viaPath.stderr).toBe(0);
    expect(viaPath.stdout).toMatch(/^memory: hf:\/\/datasets\/acme\/errs\n/);
  });
});

describe("no memory or index is exit 1, with the same line, whichever command reads it", () => {
  it("a --memory folder without an index: status fails as recall, get and sessions do", async () => {
    const nope = join(t.dir, "nope");
    const said = new Set<string>();
    for (const args of [
      ["status"],
      ["status", "--json"],
      ["recall", "x"],
      ["get", "s1", "t1"],
      ["sessions"],
    ]) {
      const r = await runFunes([...args, "--memory", nope], writer);
      expect(r.stdout, args.join(" ")).toBe("");
      said.add(expectOneClearLine(r, 1));
    }
    expect([...said]).toEqual([
      `no index found at ${nope} — give the folder that holds chunks.lance, owner/name for a Hub memory, or local`,
    ]);
  });

  it("the default memory before the first index: recall fails (1), status reports it (0)", async () => {
    // docs/exit-codes.md: 1 is a run that failed. Recall cannot answer without an index; status's job is
    // to say what state this machine is in, and "nothing indexed yet, run funes index" is that state on
    // every fresh install (the agents line follows), not a failure a script should branch on.
    const fresh = env("fresh");
    expect(expectOneClearLine(await runFunes(["recall", "x"], fresh), 1)).toContain("no index yet");
    const status = await runFunes(["status"], fresh);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe(
      `memory: ${join(fresh.funesHome, "memory")}\nno index yet — run \`funes index\` to build one, then recall your own history.\nagents: none set up — \`funes add <agent>\` sets one up\n`,
    );
    expect((await runFunes(["status", "--memory", "local"], fresh)).code).toBe(0);
  });
});

describe("variables with values funes cannot use are refused, naming the variable (exit 2)", () => {
  it("numbers, the endpoint, the model-server switch and a FUNES_HOME that is a file", async () => {
    const file = join(t.dir, "home-is-a-file");
    writeFileSync(file, "");
    const cases: [Record<string, string>, string][] = [
      [{ FUNES_THREADS: "abc" }, 'FUNES_THREADS="abc" is not a whole number ≥ 1 — set e.g. FUNES_THREADS=2'],
      [{ FUNES_MAX_DOWNLOAD_MB: "-1" }, 'FUNES_MAX_DOWNLOAD_MB="-1" is not a number > 0'],
      [{ FUNES_INDEX_WORKER_ROWS: "x" }, 'FUNES_INDEX_WORKER_ROWS="x" is not a whole number ≥ 0'],
      [{ HF_ENDPOINT: "notaurl" }, 'HF_ENDPOINT="notaurl" is not an http(s) address'],
      [{ FUNES_SERVER: "maybe" }, 'FUNES_SERVER="maybe" is not 0 or 1'],
      [{ FUNES_SERVER_IDLE: "soon" }, 'FUNES_SERVER_IDLE="soon" is not a number > 0'],
      [{ FUNES_EMBED_PRECISION: "int4" }, 'FUNES_EMBED_PRECISION="int4" is not fp32 or int8'],
    ];
    for (const [extra, message] of cases) {
      const r = await runFunes(["status"], { ...writer, extra: { ...writer.extra, ...extra } });
      expect(expectOneClearLine(r, 2)).toContain(message);
    }
    const home = await runFunes(["index"], { ...writer, funesHome: file });
    expect(expectOneClearLine(home, 2)).toContain(`FUNES_HOME="${file}" is a file, not a folder`);
  });
});

describe("funes get takes the ids recall printed however they were pasted", () => {
  it("the whole → get line, in quotes, with extra spaces or quotes; empty ids are bad input", async () => {
    const recall = await runFunes(["recall", "lance", "-k", "1", "--format", "agent"], writer);
    expect(recall.code, recall.stderr).toBe(0);
    const line = recall.stdout.split("\n").find((l) => l.startsWith("  → get ")) ?? "";
    const [sid, tid] = line.replace("  → get ", "").split(" ") as [string, string];
    const want = await runFunes(["get", sid, tid, "--format", "agent"], writer);
    expect(want.code, want.stderr).toBe(0);
    expect(want.stdout).toContain(`turn=${tid}`);
    for (const args of [
      line.trim().split(" "),
      [line.trim()],
      ["get", line.trim()],
      ["get", "→", "get", sid, tid],
      ["get", ` ${sid} `, `  ${tid}`],
      ["get", `"${sid}"`, `'${tid}'`],
    ]) {
      const r = await runFunes([...args, "--format", "agent"], writer);
      expect(r.code, `${args.join(" | ")}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(" | ")).toBe(want.stdout);
    }
    expect(expectOneClearLine(await runFunes(["get", "", ""], writer), 2)).toContain(
      "get needs a session id (and a turn id, or --from/--to), not an empty one — copy them from a recall hit's → get line, or a session's from funes sessions",
    );
    expect(expectOneClearLine(await runFunes(["get", "", "--from", "0"], writer), 2)).toContain(
      "get needs a session id (and a turn id, or --from/--to), not an empty one",
    );
  });
});

describe("flags that contradict each other are refused, not one of them silently dropped (exit 2)", () => {
  it("an empty time window, two output choices, a session both in and out, --harness without --hook", async () => {
    const requests = hub.requests.length;
    const cases: [string[], string][] = [
      [
        ["recall", "x", "--since", "2027-01-01", "--until", "2026-01-01"],
        '--since "2027-01-01" is later than --until "2026-01-01", so nothing can match — swap the two',
      ],
      [["forget", "--since", "1d", "--until", "7d", "--yes"], '--since "1d" is later than --until "7d"'],
      [
        ["recall", "x", "--json", "--format", "agent"],
        "--json and --format both choose the output — give one",
      ],
      [["curate", "acme/errs", "--include", "s1", "--exclude", "s2,s1"], 'session "s1" is given to both'],
      [
        ["push", "acme/errs", "--harness", "claude"],
        "--harness names the agent of a --hook push — add --hook",
      ],
    ];
    for (const [args, message] of cases)
      expect(expectOneClearLine(await runFunes(args, writer), 2), args.join(" ")).toContain(message);
    expect(hub.requests.length).toBe(requests);
  });
});
