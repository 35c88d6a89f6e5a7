/**
 * The MCP server's behaviours, in memory: a real MCP client linked to the server by the SDK's in-memory
 * transport pair, over a local memory indexed from the public codex fixture (keyword-only: no models). Each
 * tool answers in the agent format; a bad argument is a tool error (`isError`) naming the tool's own
 * argument. The stdio end-to-end test stays in test/e2e/recall.test.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture, tempDir } from "../../test/helpers/fixtures.js";
import {
  getTurn,
  indexSessions,
  ModelSession,
  type ModelsConfig,
  openReadTarget,
  rangeOfMemories,
  recallMemories,
  recallOptions,
  scanOfMemories,
  sessionsOfMemories,
  sessionsOptions,
} from "../commands/index.js";
import {
  formatGetAgent,
  formatRangeAgent,
  formatRecallAgent,
  formatScanAgent,
  formatSessionsAgent,
} from "../format/index.js";
import { createMcpServer } from "./server.js";

const NOW = Date.parse("2026-11-29T12:00:00Z");
let t: { dir: string; cleanup: () => void };
let client: Client;
let models: ModelSession;
let homes: { funesHome: string; home: string };
let config: ModelsConfig;

beforeAll(async () => {
  t = tempDir();
  homes = { funesHome: join(t.dir, "funes"), home: join(t.dir, "home") };
  mkdirSync(join(homes.home, ".codex"), { recursive: true });
  copyFixture("codex", join(homes.home, ".codex", "sessions"));
  await indexSessions({ ...homes, thinking: true });
  config = { hubCache: join(t.dir, "no-models"), reranker: "ms-marco-MiniLM-L-6-v2", threads: 1, hubUrl: "" };
  models = new ModelSession(config);
  const server = createMcpServer({
    ...homes,
    memory: undefined,
    models: config,
    session: async () => models,
    now: () => NOW,
    version: "0.0.0-test",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "test", version: "0.0.0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await models?.close();
  t?.cleanup();
});

/** A tool's text and whether it is an error. */
async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { text: r.content.map((c) => c.text).join(""), isError: r.isError === true };
}

describe("the MCP server, in memory", () => {
  it("lists recall, get, sessions, scan and status, each hinted read-only", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["get", "recall", "scan", "sessions", "status"]);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.annotations?.destructiveHint).toBe(false);
    }
  });

  it("recall answers in the agent format, the same text the CLI prints", async () => {
    const r = await call("recall", { query: "portfolio website", k: 2 });
    expect(r.isError).toBe(false);
    const direct = await recallMemories(
      [],
      recallOptions("portfolio website", NOW, { k: 2 }),
      homesCtx(),
      models,
    );
    expect(direct.hits.length).toBeGreaterThan(0);
    expect(r.text).toBe(formatRecallAgent(direct));
    expect(r.text).toContain("  → get ");
    expect((await call("recall", { query: "zzyzxquorbl" })).text).toBe("no results");
  });

  it("get reads a recalled turn with the turns around it, and says when a turn is not there", async () => {
    const direct = await recallMemories(
      [],
      recallOptions("portfolio website", NOW, { k: 1 }),
      homesCtx(),
      models,
    );
    const hit = direct.hits[0];
    if (hit === undefined) throw new Error("no hit");
    const r = await call("get", { session_id: hit.sessionId, turn_uuid: hit.turnUuid, window: 1 });
    expect(r.isError).toBe(false);
    const { memory } = await openReadTarget(undefined, homesCtx());
    const turns = await getTurn(memory, hit.sessionId, hit.turnUuid, 1);
    expect(r.text).toBe(formatGetAgent(turns, hit.sessionId, hit.turnUuid));
    expect(r.text).toContain(`turn=${hit.turnUuid}`);
    const missing = await call("get", { session_id: hit.sessionId, turn_uuid: "no-such-turn" });
    expect(missing.isError).toBe(false);
    expect(missing.text).toMatch(/^turn no-such-turn not found in session /);
    // Ids as an agent may copy them: quoted, padded, or with the hit's `→ get` words still on.
    for (const [session_id, turn_uuid] of [
      [`'${hit.sessionId}'`, ` ${hit.turnUuid} `],
      [`→ get ${hit.sessionId}`, `"${hit.turnUuid}"`],
    ]) {
      const pasted = await call("get", { session_id, turn_uuid, window: "1" });
      expect(pasted, `${session_id} ${turn_uuid}`).toEqual({ isError: false, text: r.text });
    }
  });

  it("counts may come as strings; anything else outside the range, an empty id or an unknown argument is a tool error", async () => {
    const asText = await call("recall", { query: "portfolio website", k: "1" });
    expect(asText.isError).toBe(false);
    expect(asText).toEqual(await call("recall", { query: "portfolio website", k: 1 }));
    const cases: [string, Record<string, unknown>, string][] = [
      [
        "recall",
        { query: "x", k: "1e9" },
        'recall error: k takes a whole number from 1 to 50, not "1e9" — pass e.g. k: 8, or leave it out',
      ],
      [
        "recall",
        { query: "x", k: 2.5 },
        "recall error: k takes a whole number from 1 to 50, not 2.5 — pass e.g. k: 8, or leave it out",
      ],
      [
        "get",
        { session_id: "s", turn_uuid: "t", window: -1 },
        "get error: window takes a whole number from 0 to 50",
      ],
      ["get", { session_id: " ", turn_uuid: "t" }, "get error: session_id and turn_uuid must not be empty"],
    ];
    for (const [tool, args, want] of cases) {
      const r = await call(tool, args);
      expect(r, JSON.stringify(args)).toEqual({ isError: true, text: expect.stringContaining(want) });
      expect(r.text.split("\n")).toHaveLength(1);
    }
    const unknown = await call("recall", { query: "x", top_k: 3 });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('Unrecognized key: "top_k"');
  });

  it("sessions lists the memory's sessions in the agent format, a page at a time, each with a get line get reads", async () => {
    const r = await call("sessions", {});
    expect(r.isError).toBe(false);
    const direct = await sessionsOfMemories([], sessionsOptions(NOW), homesCtx());
    expect(direct.total).toBeGreaterThan(1);
    expect(r.text).toBe(formatSessionsAgent(direct));
    expect(r.text).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] codex /);
    expect(r.text).toContain(`sessions 1–${direct.total} of ${direct.total}, newest first`);
    // Its → get line is one the get tool reads, from the session's opening turn.
    const line = /^ {2}→ get (\S+) (\S+) --memory (\S+)$/m.exec(r.text);
    if (line === null) throw new Error(r.text);
    const turn = await call("get", { session_id: line[1], turn_uuid: line[2], window: 0, memory: line[3] });
    expect(turn.text).toContain(`turn=${line[2]}`);
    expect(turn.text).toMatch(/\] user seq/);
    // Counts as strings; one a page, and the offset that continues.
    const page = await call("sessions", { limit: "1", offset: 0 });
    expect(page.text).toContain(`sessions 1–1 of ${direct.total}, newest first; offset 1 continues`);
    expect((await call("sessions", { repo: "nobody/nothing" })).text).toBe("no sessions\n");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ limit: 0 }, /^sessions error: limit takes a whole number from 1 to 200, not 0/],
      [{ offset: "-2" }, /^sessions error: offset takes a whole number from 0/],
      [{ since: "soonish" }, /^sessions error: since "soonish" is not a date/],
      [
        { since: "2026-06-01", until: "2026-01-01" },
        /^sessions error: since "2026-06-01" is later than until/,
      ],
      [{ repo: "" }, /^sessions error: repo "" is empty/],
    ];
    for (const [args, want] of cases) {
      const bad = await call("sessions", args);
      expect(bad.isError, JSON.stringify(args)).toBe(true);
      expect(bad.text).toMatch(want);
      expect(bad.text).not.toMatch(/--(since|until|limit|offset|repo)\b/);
    }
    const unknown = await call("sessions", { query: "x" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('Unrecognized key: "query"');
  });

  it("scan finds an exact text in one session with each turn's position, and says when it is not there", async () => {
    const direct = await recallMemories(
      [],
      recallOptions("portfolio website", NOW, { k: 1 }),
      homesCtx(),
      models,
    );
    const hit = direct.hits[0];
    if (hit === undefined) throw new Error("no hit");
    const needle = Array.from(hit.text.trim()).slice(0, 12).join("");
    const r = await call("scan", { needle, session_id: hit.sessionId.slice(0, 8), context: "1" });
    expect(r.isError).toBe(false);
    const scanned = await scanOfMemories(
      [],
      { needle, sessionId: hit.sessionId, ignoreCase: false, context: 1 },
      homesCtx(),
    );
    expect(scanned.matches).toBeGreaterThan(0);
    expect(r.text).toBe(formatScanAgent(scanned));
    expect(r.text.split("\n")[0]).toMatch(
      new RegExp(
        `^\\d+ match(es)? of .* in \\d+ of ${scanned.scanned} turns? of session ${hit.sessionId} \\(seq `,
      ),
    );
    expect(r.text).toMatch(
      new RegExp(`^\\[[^\\]]+\\] \\S+ seq${hit.seq} turn=${hit.turnUuid} matches=\\d+$`, "m"),
    );
    expect(r.text).toContain(`  → get ${hit.sessionId} ${hit.turnUuid} --memory `);
    const absent = await call("scan", { needle: "zzyzx-never-said", session_id: hit.sessionId });
    expect(absent).toEqual({
      isError: false,
      text: `"zzyzx-never-said" not found in ${scanned.scanned} turns of session ${hit.sessionId} (seq ${scanned.first}–${scanned.last})\n`,
    });
    const folded = await call("scan", {
      needle: needle.toUpperCase(),
      session_id: hit.sessionId,
      ignore_case: true,
    });
    expect(folded.text).toMatch(/^\d+ match(es)? of .*, ignoring case\n/);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ needle: "", session_id: hit.sessionId }, /^scan error: needle "" is empty/],
      [
        { needle: "x", session_id: hit.sessionId, context: 51 },
        /^scan error: context takes a whole number from 0 to 50/,
      ],
      [{ needle: "x", session_id: hit.sessionId, from: 9, to: 3 }, /^scan error: from "9" is past to \(3\)/],
      [{ needle: "x", session_id: hit.sessionId, from: "-1" }, /^scan error: from takes a turn position/],
      [{ needle: "x", session_id: "no-such-session" }, /^scan error: session "no-such-session" is not in /],
    ];
    for (const [args, want] of cases) {
      const bad = await call("scan", args);
      expect(bad.isError, JSON.stringify(args)).toBe(true);
      expect(bad.text).toMatch(want);
      expect(bad.text.split("\n")).toHaveLength(1);
      expect(bad.text).not.toMatch(/--(from|to|context)\b/);
    }
  });

  it("get reads a stretch of a session by position, and says where to read on", async () => {
    const listed = await sessionsOfMemories([], sessionsOptions(NOW), homesCtx());
    const longest = [...listed.sessions].sort((a, b) => b.turns - a.turns)[0];
    if (longest === undefined || longest.turns < 3) throw new Error("no session of 3 turns");
    const r = await call("get", { session_id: longest.sessionId, from: "0", to: 1 });
    expect(r.isError).toBe(false);
    const direct = await rangeOfMemories([], longest.sessionId, { from: 0, to: 1 }, homesCtx());
    expect(r.text).toBe(formatRangeAgent(direct));
    expect(direct.turns.map((x) => x.seq)).toEqual([0, 1]);
    expect(r.text).toMatch(/^\[[^\]]+\] \S+ seq0 turn=/);
    expect(r.text.trimEnd().split("\n").at(-1)).toBe(
      `seq 0–1: 2 of ${longest.turns} turns of session ${longest.sessionId}; from 2 continues`,
    );
    // The session alone: its first turns.
    const opening = await call("get", { session_id: longest.sessionId });
    expect(opening.text.startsWith(r.text.slice(0, r.text.indexOf("seq 0–1:")))).toBe(true);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ session_id: longest.sessionId, from: 5, to: 2 }, /^get error: from "5" is past to \(2\)/],
      [
        { session_id: longest.sessionId, turn_uuid: "t", from: 1 },
        /^get error: get takes turn_uuid or from\/to, not both/,
      ],
      [{ session_id: longest.sessionId, window: 2 }, /^get error: window counts turns around turn_uuid/],
      [
        { session_id: longest.sessionId, from: 100_000 },
        /^get error: session "[^"]+" has no turns at seq 100000 or after/,
      ],
      [{ session_id: "zz", from: 0 }, /^get error: session "zz" is not in /],
    ];
    for (const [args, want] of cases) {
      const bad = await call("get", args);
      expect(bad.isError, JSON.stringify(args)).toBe(true);
      expect(bad.text).toMatch(want);
    }
  });

  it("status says what the memory holds", async () => {
    const r = await call("status", {});
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/chunks/);
    expect(r.text).toMatch(/codex/);
  });

  it("a bad argument is a tool error naming the tool's own argument, not the CLI's flag", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["recall", { query: "lance", since: "soonish" }, /^recall error: since "soonish" is not a date/],
      ["recall", { query: "lance", until: "later" }, /^recall error: until "later" is not a date/],
      [
        "recall",
        { query: "lance", block_type: "pictures" },
        /^recall error: block_type "pictures" is not a block type/,
      ],
      ["recall", { query: "lance", harness: "vim" }, /^recall error: harness "vim" is not a harness/],
      ["recall", { query: "   " }, /^recall error: query " {3}" is empty/],
    ];
    for (const [tool, args, want] of cases) {
      const r = await call(tool, args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.text).toMatch(want);
      expect(r.text).not.toMatch(/--(since|until|type|harness)\b/);
      expect(r.text).not.toMatch(/\n\s+at /);
    }
  });

  it("arguments outside a tool's schema are tool errors that name the argument", async () => {
    const k = await call("recall", { query: "lance", k: 0 });
    expect(k.isError).toBe(true);
    expect(k.text).toMatch(/recall/);
    expect(k.text).toMatch(/\bk\b/);
    // turn_uuid may be left out (get then reads by position); session_id may not.
    const turn = await call("get", { turn_uuid: "t" });
    expect(turn.isError).toBe(true);
    expect(turn.text).toMatch(/session_id/);
    const needle = await call("scan", { session_id: "s" });
    expect(needle.isError).toBe(true);
    expect(needle.text).toMatch(/needle/);
  });

  it("a memory without an index: status says so, and reading it is a tool error with the CLI's sentence", async () => {
    const dir = join(t.dir, "nowhere");
    expect(await call("status", { memory: dir })).toEqual({
      isError: false,
      text: `memory: ${dir}\nno index found at ${dir}\n`,
    });
    const g = await call("get", { session_id: "s", turn_uuid: "t", memory: dir });
    expect(g).toEqual({
      isError: true,
      text: `get error: no index found at ${dir} — give the folder that holds chunks.lance, owner/name for a Hub memory, or local`,
    });
    const r = await call("recall", { query: "lance", memory: dir });
    expect(r).toEqual({
      isError: true,
      text: `recall error: no index found at ${dir} — give the folder that holds chunks.lance, owner/name for a Hub memory, or local`,
    });
  });

  it("leaves funes's own earlier outputs out of recall unless `echoes` asks for them", async () => {
    // An agent's earlier recall of the same question, indexed like any turn: its output quotes the passage.
    const quoted = formatRecallAgent(
      await recallMemories([], recallOptions("portfolio website", NOW, { k: 1 }), homesCtx(), models),
    );
    const project = join(homes.home, ".claude", "projects", "-home-dev-echo");
    mkdirSync(project, { recursive: true });
    const line = (uuid: string, parentUuid: string | null, type: string, content: unknown) =>
      JSON.stringify({
        type,
        uuid,
        parentUuid,
        sessionId: "echo-1",
        cwd: "/home/dev/echo",
        timestamp: "2026-11-28T10:00:00Z",
        message: { role: type, content },
      });
    writeFileSync(
      join(project, "echo-1.jsonl"),
      `${[
        line("u1", null, "user", "portfolio website?"),
        line("a1", "u1", "assistant", [
          {
            type: "tool_use",
            id: "toolu_1",
            name: "mcp__funes__recall",
            input: { query: "portfolio website" },
          },
        ]),
        line("u2", "a1", "user", [{ type: "tool_result", tool_use_id: "toolu_1", content: quoted }]),
      ].join("\n")}\n`,
    );
    await indexSessions({ ...homes, thinking: true });
    const plain = await call("recall", { query: "portfolio website", k: 20 });
    expect(plain.isError).toBe(false);
    expect(plain.text).not.toContain("[tool_result mcp__funes__recall]");
    const shown = await call("recall", { query: "portfolio website", k: 20, echoes: true });
    expect(shown.isError).toBe(false);
    expect(shown.text).toContain("[tool_result mcp__funes__recall]");
    expect((await call("recall", { query: "portfolio website", echoes: "yes" })).isError).toBe(true);
  });
});

function homesCtx() {
  return { ...homes, models: config };
}
