/**
 * `sessions` over a real local memory written with chosen rows: newest first, a page at a time, filtered by
 * repo and start time as recall reads times, each session keyed by agent and id, with the first thing its
 * user typed (an agent's injected markup passed over) and the turn it is in.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import type { Chunk } from "../chunk/index.js";
import { LocalStore } from "../local/index.js";
import { BadArgumentError } from "./errors.js";
import { type ReadContext, sessionsOfMemories, sessionsOptions } from "./index.js";

const NOW = Date.parse("2026-04-01T12:00:00Z");
let t: { dir: string; cleanup: () => void };
let ctx: ReadContext;
let other: string;

/** One row; `n` numbers it within its session. */
function row(o: {
  session: string;
  harness: string;
  n: number;
  ts: string;
  role?: string;
  text?: string;
  repo?: string;
  workdir?: string;
  blockType?: string;
  splitIdx?: number;
}): Chunk {
  return {
    id: `${o.harness}-${o.session}-${o.n}-${o.splitIdx ?? 0}`,
    text: o.text ?? `row ${o.n}`,
    sessionId: o.session,
    workdir: o.workdir ?? "/work/app",
    turnUuid: `${o.session}-t${o.n}`,
    parentUuid: null,
    seq: o.n,
    ts: o.ts,
    role: o.role ?? "assistant",
    blockType: o.blockType ?? "text",
    toolName: null,
    sourcePath: `/traces/${o.session}.jsonl`,
    blockIdx: 0,
    splitIdx: o.splitIdx ?? 0,
    harness: o.harness,
    repo: o.repo ?? "",
  };
}

beforeAll(async () => {
  t = tempDir();
  ctx = {
    funesHome: join(t.dir, "funes"),
    home: join(t.dir, "home"),
    models: { hubCache: join(t.dir, "hf"), reranker: "ms-marco-MiniLM-L-6-v2", threads: 1, hubUrl: "" },
  };
  const store = await LocalStore.openOrCreate(join(ctx.funesHome, "memory"));
  await store.append([
    // January, acme/app: a slash command's markup first, then what the user typed, in two pieces.
    row({
      session: "jan",
      harness: "claude_code",
      n: 0,
      ts: "2026-01-10T09:00:00.000Z",
      role: "user",
      text: "<command-name>/init</command-name>",
      repo: "acme/app",
    }),
    row({
      session: "jan",
      harness: "claude_code",
      n: 1,
      ts: "2026-01-10T09:01:00.000Z",
      role: "user",
      text: "fix the flaky\nlogin test",
      repo: "acme/app",
    }),
    row({
      session: "jan",
      harness: "claude_code",
      n: 1,
      ts: "2026-01-10T09:01:00.000Z",
      role: "user",
      text: "second piece",
      repo: "acme/app",
      splitIdx: 1,
    }),
    row({ session: "jan", harness: "claude_code", n: 2, ts: "2026-01-10T09:05:00.000Z", repo: "acme/app" }),
    // February, no repo: the place is its folder; no user text at all.
    row({ session: "feb", harness: "codex", n: 0, ts: "2026-02-03T10:00:00.000Z", workdir: "/w/scratch" }),
    row({ session: "feb", harness: "codex", n: 1, ts: "[placeholder]", workdir: "/w/scratch" }),
    // March, two repos; and the same id under another agent, a session of its own.
    row({
      session: "mar",
      harness: "codex",
      n: 0,
      ts: "2026-03-20T08:00:00.000Z",
      role: "user",
      text: "ship the release",
      repo: "acme/app other/lib",
    }),
    row({
      session: "mar",
      harness: "codex",
      n: 1,
      ts: "2026-03-20T08:30:00.000Z",
      repo: "acme/app other/lib",
    }),
    row({
      session: "mar",
      harness: "pi",
      n: 0,
      ts: "2026-03-25T08:00:00.000Z",
      role: "user",
      text: "pi's own question",
    }),
  ]);
  store.close();
  other = join(t.dir, "other");
  const second = await LocalStore.openOrCreate(other);
  await second.append([
    row({
      session: "elsewhere",
      harness: "codex",
      n: 0,
      ts: "2026-03-01T00:00:00.000Z",
      role: "user",
      text: "from the team",
    }),
  ]);
  second.close();
});

afterAll(() => t?.cleanup());

const list = (more: Parameters<typeof sessionsOptions>[1] = {}, specs: string[] = []) =>
  sessionsOfMemories(specs, sessionsOptions(NOW, more), ctx);

describe("sessions", () => {
  it("lists every session newest first, keyed by agent and id, with its facts and opening prompt", async () => {
    const r = await list();
    expect(r.total).toBe(4);
    expect(r.sessions.map((s) => `${s.harness}/${s.sessionId}`)).toEqual([
      "pi/mar",
      "codex/mar",
      "codex/feb",
      "claude_code/jan",
    ]);
    const jan = r.sessions[3];
    expect(jan).toMatchObject({
      repo: "acme/app",
      workdir: "/work/app",
      started: "2026-01-10T09:00:00.000Z",
      ended: "2026-01-10T09:05:00.000Z",
      turns: 3,
      // The markup an agent wrote for a slash command is not what the user typed; the first piece is.
      prompt: "fix the flaky\nlogin test",
      promptTurn: "jan-t1",
      memory: join(ctx.funesHome, "memory"),
    });
    // A time that is no time is left out, never taken as the latest.
    expect(r.sessions[2]).toMatchObject({ prompt: "", promptTurn: "", ended: "2026-02-03T10:00:00.000Z" });
    expect(r.sessions[0]?.prompt).toBe("pi's own question");
  });

  it("pages from the newest, and says how many match in all", async () => {
    const first = await list({ limit: 2 });
    const second = await list({ limit: 2, offset: 2 });
    expect([...first.sessions, ...second.sessions].map((s) => `${s.harness}/${s.sessionId}`)).toEqual(
      (await list()).sessions.map((s) => `${s.harness}/${s.sessionId}`),
    );
    expect([first.total, second.total, second.offset, second.limit]).toEqual([4, 4, 2, 2]);
    expect((await list({ offset: 9 })).sessions).toEqual([]);
    const capped = await list({ limit: 500 });
    expect(capped.limit).toBe(200);
    expect(capped.notes.join("\n")).toContain("capped at 200");
  });

  it("filters by repo (any of a session's, any case) and by start time as recall reads times", async () => {
    expect((await list({ repo: "ACME/app" })).sessions.map((s) => s.harness)).toEqual([
      "codex",
      "claude_code",
    ]);
    expect((await list({ repo: "other/lib" })).sessions.map((s) => s.sessionId)).toEqual(["mar"]);
    expect((await list({ repo: "acme/ap" })).total).toBe(0);
    expect(
      (await list({ since: "2026-02-01", until: "2026-03-21" })).sessions.map((s) => s.sessionId),
    ).toEqual(["mar", "feb"]);
    // A span back from now: NOW is 1 April, so 10 days back keeps only pi's session of 25 March.
    expect((await list({ since: "10d" })).sessions.map((s) => s.harness)).toEqual(["pi"]);
  });

  it("lists several memories as one, each session naming the memory holding it", async () => {
    const r = await list({}, ["local", other]);
    expect(r.total).toBe(5);
    expect(r.memory).toBe(`${join(ctx.funesHome, "memory")}, ${other}`);
    const team = r.sessions.find((s) => s.sessionId === "elsewhere");
    expect(team).toMatchObject({ memory: other, prompt: "from the team", promptTurn: "elsewhere-t0" });
    expect(r.sessions.map((s) => s.started)).toEqual([...r.sessions.map((s) => s.started)].sort().reverse());
  });

  it("names a bad argument before reading", async () => {
    for (const [more, arg] of [
      [{ limit: 0 }, "limit"],
      [{ offset: -1 }, "offset"],
      [{ repo: " " }, "repo"],
      [{ since: "someday" }, "since"],
      [{ since: "2026-03-01", until: "2026-02-01" }, "since"],
    ] as const) {
      const err = await list(more, [join(t.dir, "nowhere")]).catch((e: unknown) => e);
      expect(err, arg).toBeInstanceOf(BadArgumentError);
      expect((err as BadArgumentError).arg).toBe(arg);
    }
  });
});
