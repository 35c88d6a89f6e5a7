/**
 * `funes ask` with the real `claude` and `codex` CLIs against loopback model stubs: the answer printed is
 * the stub's, the prompt the stub received holds the recalled passages, no session is left behind, and
 * everything that can fail before the agent runs fails first. A model that never answers hits the limit.
 */
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliEnv, runFunes, runFunesInTerminal } from "../helpers/cli.js";
import { ROOT, TEST_HUB_CACHE, TRACES, tempDir } from "../helpers/fixtures.js";
import { type ModelStub, startModelStub } from "../helpers/model-stubs.js";
import { writeQualityCorpus } from "../helpers/quality-corpus.js";

const BIN = join(ROOT, "node_modules", ".bin");
const QUESTION = "how was the photo-realistic earth built with three.js?";
let t: { dir: string; cleanup: () => void };
let stub: ModelStub;
let u: CliEnv;
let silent: Server;
let silentUrl: string;
const held: Socket[] = [];

function codexConfig(home: string, baseUrl: string): void {
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    `model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${baseUrl}/v1"\nenv_key = "FAKE_KEY"\nwire_api = "responses"\nsupports_websockets = false\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[mcp_servers.funes]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(CLI)}, "mcp"]\n`,
  );
}

const transcripts = (home: string) =>
  readdirSync(join(home, ".claude", "projects"), { recursive: true }).filter((f) =>
    String(f).endsWith(".jsonl"),
  ).length;

beforeAll(async () => {
  t = tempDir();
  stub = await startModelStub("The earth was built from layered Three.js spheres.");
  // A model endpoint that accepts connections and never answers.
  silent = createServer((s) => held.push(s));
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const home = join(t.dir, "home");
  mkdirSync(join(home, ".claude", "projects", "-home-dev-earth"), { recursive: true });
  copyFileSync(
    join(TRACES, "claude", "claude_session.jsonl"),
    join(home, ".claude", "projects", "-home-dev-earth", "s.jsonl"),
  );
  u = {
    home,
    funesHome: join(home, ".funes"),
    extra: {
      PATH: `${BIN}:${process.env.PATH ?? ""}`,
      HF_HUB_CACHE: TEST_HUB_CACHE,
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: "sk-ant-stub",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      FAKE_KEY: "stub-key",
    },
  };
  expect((await runFunes(["index", "--yes"], u)).code).toBe(0);
});
afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
  await stub.close();
  t.cleanup();
});

describe("funes ask", () => {
  it("claude answers from the recalled passages it was given, and keeps no session", async () => {
    const before = transcripts(u.home);
    stub.requests.length = 0;
    const r = await runFunes(["ask", "claude", QUESTION], u);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("The earth was built from layered Three.js spheres.\n");
    const prompt = JSON.stringify(stub.requests.map((q) => q.body.messages));
    expect(prompt).toContain(`Question: ${QUESTION}`);
    expect(prompt).toContain("== RECALLED PASSAGES ==");
    expect(prompt).toMatch(/→ get \S+ \S+/);
    expect(prompt.toLowerCase()).toContain("three.js");
    // Only the prompt went out: no tools, no MCP servers.
    const main = stub.requests.find((q) =>
      String(JSON.stringify(q.body.messages)).includes("RECALLED PASSAGES"),
    );
    expect(main?.body.tools ?? []).toEqual([]);
    expect(transcripts(u.home)).toBe(before);
  });

  it("hands the agent an old answer first, ahead of newer look-alikes, before any model is present", async () => {
    const corpus = writeQualityCorpus({
      dir: join(t.dir, "old-answer"),
      seed: 3,
      perKind: 1,
      kinds: ["old"],
      distractors: 20,
      memories: 1,
      now: Date.now(),
    });
    const c = corpus.cases[0];
    if (c === undefined) throw new Error("no case");
    const old = {
      ...u,
      home: corpus.homes[0] as string,
      funesHome: join(t.dir, "old-answer-funes"),
      extra: { ...u.extra, HF_HUB_CACHE: join(t.dir, "none") },
    };
    expect((await runFunes(["index"], old)).code).toBe(0);
    stub.requests.length = 0;
    const r = await runFunes(["ask", "claude", c.query], old);
    expect(r.code, r.stderr).toBe(0);
    const prompt = stub.requests
      .map((q) => JSON.stringify(q.body.messages) ?? "")
      .find((m) => m.includes("RECALLED"));
    expect(prompt?.match(/→ get (\S+)/)?.[1]).toBe(c.answerSession);
  });

  it("codex answers from the recalled passages it was given", async () => {
    codexConfig(u.home, stub.url);
    stub.requests.length = 0;
    const r = await runFunes(["ask", "codex", QUESTION], u);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("The earth was built from layered Three.js spheres.\n");
    const sent = JSON.stringify(stub.requests.map((q) => q.body.input));
    expect(sent).toContain("== RECALLED PASSAGES ==");
    expect(sent).toMatch(/→ get \S+ \S+/);
    expect(readdirSync(join(u.home, ".codex")).includes("sessions")).toBe(false);
    // The funes MCP server registered in config.toml was kept out: none of its tools reached the model.
    expect(JSON.stringify(stub.requests.map((q) => q.body.tools))).not.toContain("recall");
  });

  it("stops an agent whose model never answers, and says so", async () => {
    codexConfig(u.home, silentUrl);
    const t0 = Date.now();
    const r = await runFunes(["ask", "codex", QUESTION, "--timeout", "4"], u);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("`codex` gave no answer within 4 s and was stopped");
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it("says in one line, within seconds, that an agent is logged out or cannot reach its model", async () => {
    // A port nothing listens on: every connection is refused.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const refused = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    const { ANTHROPIC_API_KEY: _key, ...loggedOut } = u.extra ?? {};
    const out = await runFunes(["ask", "claude", QUESTION], { ...u, extra: loggedOut });
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(
      /^funes: `claude` failed \(exit 1\): Not logged in[^\n]* — fix that in `claude`/,
    );
    const offline = { ...u, extra: { ...u.extra, ANTHROPIC_BASE_URL: refused } };
    for (const agent of ["claude", "codex"]) {
      if (agent === "codex") codexConfig(u.home, refused);
      const t0 = Date.now();
      const r = await runFunes(["ask", agent, QUESTION], offline);
      expect(r.code, agent).toBe(1);
      expect(r.stderr).toContain(`funes: \`${agent}\` cannot reach its model (`);
      expect(r.stderr).toContain("and was stopped — check your connection");
      // One line: no literal `\n`, none of the agent's JSON events.
      expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\\n|\{"type"/);
      // Well inside the default 300 s limit (claude's third retry comes about 4 s in).
      expect(Date.now() - t0).toBeLessThan(60_000);
    }
    // On a terminal it shows what it waits for while it waits.
    const term = await runFunesInTerminal(["ask", "claude", QUESTION], {
      ...offline,
      extra: { ...offline.extra, FUNES_SERVER: "0" },
    });
    expect(term.stdout).toContain("waking claude…");
    expect(term.stdout).toContain("claude cannot reach its model (connection failed, retry 1 of 10)…");
    expect(term.stdout).toContain("funes: `claude` cannot reach its model");
    expect(term.stdout).not.toMatch(/\\u00[0-9a-f]{2}/);
  });

  it("fails before running an agent when there is nothing to ground an answer in", async () => {
    const noCli = await runFunes(["ask", "claude", QUESTION], {
      ...u,
      extra: { ...u.extra, PATH: "/usr/bin:/bin" },
    });
    // A missing agent CLI is 1, as for `funes add` (docs/exit-codes.md).
    expect(noCli.code).toBe(1);
    expect(noCli.stderr).toContain("`claude` isn't on PATH — install it, or try `funes ask codex …`");
    // A keyword-only memory (indexed without models) finds nothing for a word it does not hold.
    const kw = {
      ...u,
      funesHome: join(t.dir, "keyword-funes"),
      extra: { ...u.extra, HF_HUB_CACHE: join(t.dir, "none") },
    };
    expect((await runFunes(["index"], kw)).code).toBe(0);
    const nothing = await runFunes(["ask", "claude", "zzqxj"], kw);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain("nothing recalled for that question");
    const empty = await runFunes(["ask", "claude", QUESTION], {
      ...u,
      funesHome: join(t.dir, "empty-funes"),
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("no index yet");
    const which = await runFunes(["ask", "pi", QUESTION], u);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain(
      'funes ask takes an agent: claude, codex, gemini, qwen, opencode, copilot, not "pi" — see funes ask --help',
    );
  });
});
