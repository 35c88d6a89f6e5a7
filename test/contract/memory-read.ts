/**
 * The read contract every kind of memory keeps — a local memory, a Hub memory at a commit (its cached view),
 * a federated set — run against each with its own data (the pattern of trace-source.ts): it knows where it
 * lives, recalls what it holds with each hit naming the memory holding it, gives a recalled turn back with
 * the turns around it, lists its sessions, scans one for an exact text and reads it by position, reports its
 * status, filters before ranking, and refuses bad input by argument.
 */
import { describe, expect, it } from "vitest";
import {
  BadArgumentError,
  type FederatedMemory,
  getTurn,
  listSessions,
  type ModelSession,
  memoryStatus,
  type ReadTarget,
  readTurnRange,
  recall,
  recallOptions,
  scanSession,
  sessionsOptions,
} from "../../src/commands/index.js";

/** How to open one memory kind over sample data. */
export interface MemoryReadSetup {
  /** Opens the memory under test (after the suite's own setup ran). */
  open(): Promise<ReadTarget | FederatedMemory>;
  /** Where each member lives, in order. */
  kinds: ("local" | "hub")[];
  /** A query the memory has hits for, and the agent of its rows. */
  query: string;
  harness: "codex" | "claude";
  /** The models recall uses (none needed: a keyword-only session is enough). */
  models: () => ModelSession;
  /** Where funes lives (status reads it). */
  homes: () => { funesHome: string; home: string };
}

const NOW = Date.parse("2026-11-29T12:00:00Z");

const membersOf = (m: ReadTarget | FederatedMemory): ReadTarget[] =>
  "kind" in m && m.kind === "federated" ? m.members : [m as ReadTarget];

/** Registers the contract tests for one memory kind. */
export function memoryReadContract(name: string, setup: MemoryReadSetup): void {
  const opts = (query: string, more: Parameters<typeof recallOptions>[2] = {}) =>
    recallOptions(query, NOW, { rerankBudgetMs: 0, halfLifeDays: 0, ...more });

  describe(`memory read contract: ${name}`, () => {
    it("knows where each of its memories lives", async () => {
      const members = membersOf(await setup.open());
      expect(members.map((t) => t.memory.kind)).toEqual(setup.kinds);
      for (const t of members)
        if (t.memory.kind === "hub") {
          expect(t.memory.label).toMatch(/^hf:\/\/datasets\//);
          expect(t.memory.sha).toMatch(/^[0-9a-f]{40}$/);
        } else expect(t.memory.label).toBe(t.memory.dir);
    });

    it("recalls what it holds, each hit naming the memory that holds it", async () => {
      const target = await setup.open();
      const labels = membersOf(target).map((t) => t.memory.label);
      const r = await recall(target, opts(setup.query, { k: 4 }), setup.models());
      expect(r.hits.length).toBeGreaterThan(0);
      expect(r.memory).toBe(labels.join(", "));
      for (const h of r.hits) {
        expect(labels).toContain(h.memory);
        expect(h.legs).toContain("keyword");
        expect(h.score).toBeGreaterThan(0);
        expect(h.score).toBeLessThanOrEqual(1);
      }
      expect(new Set(r.hits.map((h) => h.id)).size).toBe(r.hits.length);
    });

    it("gives a recalled turn back, with the turns around it, from the memory the hit names", async () => {
      const target = await setup.open();
      const r = await recall(target, opts(setup.query, { k: 1 }), setup.models());
      const hit = r.hits[0];
      if (hit === undefined) throw new Error("no hit");
      const holder = membersOf(target).find((t) => t.memory.label === hit.memory);
      if (holder === undefined) throw new Error(`no member named ${hit.memory}`);
      const turns = await getTurn(holder.memory, hit.sessionId, hit.turnUuid, 1);
      expect(turns?.filter((t) => t.center).map((t) => t.turnUuid)).toEqual([hit.turnUuid]);
      expect(turns?.some((t) => t.blocks.some((b) => b.text.includes(hit.text.slice(0, 40))))).toBe(true);
      expect(await getTurn(holder.memory, hit.sessionId, "no-such-turn", 1)).toBeNull();
    });

    it("scans a recalled session for an exact text at the hit's position, and reads it by position", async () => {
      const target = await setup.open();
      const r = await recall(target, opts(setup.query, { k: 1 }), setup.models());
      const hit = r.hits[0];
      if (hit === undefined) throw new Error("no hit");
      const needle = Array.from(hit.text.trim()).slice(0, 24).join("");
      const scan = { needle, sessionId: hit.sessionId, ignoreCase: false, context: 0 };
      const found = await scanSession(target, scan);
      expect(found.memory).toBe(hit.memory);
      expect(found.turns.filter((t) => t.center).map((t) => t.seq)).toContain(hit.seq);
      expect(found.scanned).toBe(found.sessionTurns);
      const absent = await scanSession(target, { ...scan, needle: `${needle} and then never this` });
      expect([absent.matches, absent.scanned]).toEqual([0, found.scanned]);
      const range = await readTurnRange(target, hit.sessionId, { from: hit.seq, to: hit.seq });
      expect(range.turns.map((t) => [t.seq, t.turnUuid])).toEqual([[hit.seq, hit.turnUuid]]);
      expect(range.sessionTurns).toBe(found.sessionTurns);
      const bad = await readTurnRange(target, hit.sessionId, { from: 2, to: 1 }).catch((e: unknown) => e);
      expect((bad as BadArgumentError).arg).toBe("from");
    });

    it("reports its status: chunks and sessions, and where it lives", async () => {
      for (const t of membersOf(await setup.open())) {
        const report = await memoryStatus(t.memory, setup.homes());
        if (report.kind !== "ready") throw new Error(`${t.memory.label}: ${report.kind}`);
        expect(report.memory).toBe(t.memory.label);
        expect(report.memoryKind).toBe(t.memory.kind);
        expect(report.chunks).toBeGreaterThan(0);
        expect(report.sessions).toBeGreaterThan(0);
      }
    });

    it("lists its sessions newest first, each naming its memory, with an opening turn get reads", async () => {
      const target = await setup.open();
      const members = membersOf(target);
      const all = await listSessions(target, sessionsOptions(NOW, { limit: 200 }));
      expect(all.total).toBe(all.sessions.length);
      expect(all.total).toBeGreaterThan(0);
      expect(all.memory).toBe(members.map((t) => t.memory.label).join(", "));
      const starts = all.sessions.map((s) => s.started);
      expect(starts).toEqual([...starts].sort().reverse());
      for (const s of all.sessions) {
        expect(s.turns).toBeGreaterThan(0);
        const holder = members.find((t) => t.memory.label === s.memory);
        if (holder === undefined) throw new Error(`no member named ${s.memory}`);
        if (s.promptTurn === "") continue;
        const turns = await getTurn(holder.memory, s.sessionId, s.promptTurn, 0);
        expect(turns?.[0]?.role).toBe("user");
        expect(turns?.[0]?.blocks.map((b) => b.text).join("\n")).toContain(s.prompt.slice(0, 40));
      }
      expect(all.sessions.some((s) => s.prompt !== "")).toBe(true);
      // A page, and what the filters leave: nothing started after 2099, a bad bound named.
      const page = await listSessions(target, sessionsOptions(NOW, { limit: 1, offset: 1 }));
      expect(page.sessions.map((s) => s.sessionId)).toEqual(all.sessions.slice(1, 2).map((s) => s.sessionId));
      expect((await listSessions(target, sessionsOptions(NOW, { since: "2099-01-01" }))).total).toBe(0);
      const bad = await listSessions(target, sessionsOptions(NOW, { until: "later" })).catch(
        (e: unknown) => e,
      );
      expect((bad as BadArgumentError).arg).toBe("until");
    });

    it("filters before ranking: another agent's rows, or a block type it lacks, give no hits", async () => {
      const target = await setup.open();
      const own = await recall(target, opts(setup.query, { harness: setup.harness }), setup.models());
      expect(own.hits.length).toBeGreaterThan(0);
      for (const h of own.hits) expect(h.harness).toBe(setup.harness === "claude" ? "claude_code" : "codex");
      const other = setup.harness === "codex" ? "pi" : "hermes";
      expect((await recall(target, opts(setup.query, { harness: other }), setup.models())).hits).toEqual([]);
      const since = await recall(target, opts(setup.query, { since: "2099-01-01" }), setup.models());
      expect(since.hits).toEqual([]);
    });

    it("answers a query it holds nothing for with no hits, and names a bad argument", async () => {
      const target = await setup.open();
      const none = await recall(target, opts("zzyzxquorbl"), setup.models());
      expect(none.hits).toEqual([]);
      const bad = await recall(target, opts(setup.query, { since: "yesterdayish" }), setup.models()).catch(
        (e: unknown) => e,
      );
      expect(bad).toBeInstanceOf(BadArgumentError);
      expect((bad as BadArgumentError).arg).toBe("since");
    });
  });
}
