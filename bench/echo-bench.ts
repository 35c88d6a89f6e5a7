/**
 * A memory that recalls from itself (issue 28), for `npm run bench -- --quality`: 22 planted decisions, then
 * rounds of agent sessions (three agents' formats, eight spellings of the tool, funes's real output each
 * time) recalling each question, indexed after every round. Prints the original-first and top-5 rates after
 * 0, 1, 3 and 10 rounds (goal: unchanged), and the share of the memory's rows that are echoes. Then the
 * milder case: decisions 1–2 years old with newer look-alikes, answers in the top 5 beside plain BM25.
 * Then the other side (issues 38 and 40, test/helpers/echo-adversarial.ts): the loop with shell spellings,
 * a notes file read back and a pasted passage; a developer building a search tool (genuine rows hidden,
 * decisions in the top 5); forgetting one of the sessions that share a licence header; forged hits.
 */
import "./native-env.js";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeTestModels } from "../scripts/make-models.js";
import { indexSessions, localMemoryFor, ModelSession, recall, recallOptions } from "../src/commands/index.js";
import { formatRecallAgent } from "../src/format/index.js";
import { forgetCandidateRows, keywordSearch, LocalStore } from "../src/local/index.js";
import { copiesAndMentions } from "../src/memory/index.js";
import { echoOf, sessionKinds } from "../src/search/index.js";
import { FORGED_HITS, licenceRows, writeSearchDevCorpus } from "../test/helpers/echo-adversarial.js";
import { type LoopStyle, localLoopDeps, runEchoLoop, writeDecisions } from "../test/helpers/echo-loop.js";

const AT = [0, 1, 3, 10];

const rate = (xs: (number | null)[], top: number) =>
  `${xs.filter((r) => r !== null && r < top).length}/${xs.length}`;

/** Runs the loop and the look-alike corpus in `dir`; returns the printed lines. */
export async function benchEchoes(dir: string): Promise<string[]> {
  const hub = join(dir, "echo-hub");
  writeTestModels(hub);
  mkdirSync(join(dir, "echo-none"), { recursive: true });
  const models = {
    hubCache: hub,
    reranker: "ms-marco-MiniLM-L-6-v2",
    threads: 2,
    hubUrl: "http://127.0.0.1:9",
  };
  const bare = new ModelSession({ ...models, hubCache: join(dir, "echo-none") });
  const withModels = new ModelSession(models);
  const out: string[] = [];
  try {
    const home = join(dir, "echo-loop");
    const ctx = { funesHome: join(home, ".funes"), home, models };
    const _target = () => ({ memory: localMemoryFor(undefined, ctx), notes: [] });
    const t0 = performance.now();
    const { checkpoints, decisions: planted } = await runEchoLoop(home, {
      seed: 2020,
      count: 22,
      lookalikes: 4,
      rounds: Math.max(...AT),
      at: AT,
      deps: localLoopDeps(ctx, { bare, withModels }),
    });
    out.push(
      `  echo loop: 22 decisions, a recall session per decision per round (claude/codex/pi, 8 spellings) (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      "    rounds  original first (keyword / rerank)  in top 5 (keyword / rerank)  ask prompt holds it  echo rows  question/restatement more relevant than the original",
    );
    const decisionsAnswer = (i: number) => planted[i]?.answer ?? "\u0000";
    for (const round of AT) {
      const c = checkpoints.get(round);
      if (c === undefined) continue;
      out.push(
        `    ${String(round).padStart(6)}  ${rate(c.ranks.keyword, 1).padStart(14)} / ${rate(c.ranks.rerank, 1).padEnd(17)} ${rate(c.ranks.keyword, 5).padStart(12)} / ${rate(c.ranks.rerank, 5).padEnd(14)} ${`${c.prompts.filter((p, i) => p.includes(decisionsAnswer(i))).length}/${c.prompts.length}`.padStart(10)}  ${c.echoRows}/${c.rows} (${((100 * c.echoRows) / Math.max(1, c.rows)).toFixed(0)}%)  ${c.outscored}/${c.prompts.length}`,
      );
    }
    // The milder case: newer look-alikes within a quarter of the answer.
    const lhome = join(dir, "lookalikes");
    const lctx = { funesHome: join(lhome, ".funes"), home: lhome, models };
    const { decisions, now } = writeDecisions(lhome, { seed: 3939, count: 39, lookalikes: 8, close: 3.5 });
    await indexSessions({ thinking: true, vectorBudgetMs: null, now: () => now, ...lctx });
    const store = await LocalStore.open(join(lctx.funesHome, "memory"));
    if (store === null) throw new Error("nothing indexed");
    let bm25 = 0;
    try {
      for (const d of decisions)
        if (
          (await keywordSearch(store.table, { query: d.query, limit: 5 })).some(
            (r) => r.sessionId === d.answerSession,
          )
        )
          bm25++;
    } finally {
      store.close();
    }
    const counts: string[] = [];
    for (const [mode, m, budget] of [
      ["keyword", bare, 0],
      ["hybrid", withModels, 0],
      ["rerank", withModels, 60_000],
    ] as const)
      for (const halfLifeDays of [30, 0]) {
        let n = 0;
        for (const d of decisions) {
          const r = await recall(
            { memory: localMemoryFor(undefined, lctx), notes: [] },
            recallOptions(d.query, now, { rerankBudgetMs: budget, halfLifeDays }),
            m,
          );
          if (r.hits.slice(0, 5).some((h) => h.sessionId === d.answerSession)) n++;
        }
        counts.push(`${mode}${halfLifeDays === 0 ? " (no recency)" : ""} ${n}`);
      }
    out.push(
      `  newer look-alikes: 39 decisions 1–2 years old, answers in the top 5 — plain BM25 ${bm25}; ${counts.join(", ")}`,
    );
    out.push(...(await benchAdversarial(dir, { bare, withModels }, models)));
  } finally {
    await bare.close();
    await withModels.close();
  }
  return out;
}

/** The kinds `sessionKinds` gives (its result was a bare array before links were read). */
function kindsOf(rows: Parameters<typeof sessionKinds>[0]): string[] {
  const k = sessionKinds(rows) as unknown;
  return Array.isArray(k) ? (k as string[]) : (k as { kinds: string[] }).kinds;
}

/** The corpora of test/helpers/echo-adversarial.ts and the loop's held-back styles; the printed lines. */
async function benchAdversarial(
  dir: string,
  sessions: { bare: ModelSession; withModels: ModelSession },
  models: { hubCache: string; reranker: string; threads: number; hubUrl: string },
): Promise<string[]> {
  const out: string[] = ["  the other side (issues 38, 40):"];
  for (const style of ["shell", "notes", "paste"] as LoopStyle[]) {
    const home = join(dir, `style-${style}`);
    const ctx = { funesHome: join(home, ".funes"), home, models };
    const { checkpoints } = await runEchoLoop(home, {
      seed: 3838,
      count: 14,
      lookalikes: 4,
      rounds: 3,
      at: [1, 3],
      style,
      deps: localLoopDeps(ctx, sessions),
    });
    const at = (r: number) => {
      const c = checkpoints.get(r);
      return c === undefined ? "-" : `${rate(c.ranks.keyword, 1)} / ${rate(c.ranks.rerank, 1)}`;
    };
    out.push(
      `    ${style.padEnd(6)} loop, 14 decisions: original first after 1 round ${at(1)}, after 3 rounds ${at(3)} (keyword / rerank)`,
    );
  }
  // A developer building a search tool.
  const home = join(dir, "search-dev");
  const ctx = { funesHome: join(home, ".funes"), home, models };
  const now = Date.parse("2026-11-30T18:00:00Z");
  const dev = writeSearchDevCorpus(home, { seed: 4040, now, lookalikes: 6 });
  await indexSessions({ thinking: true, vectorBudgetMs: null, now: () => now, ...ctx });
  const store = await LocalStore.open(join(ctx.funesHome, "memory"));
  if (store === null) throw new Error("nothing indexed");
  let rows: Awaited<ReturnType<typeof forgetCandidateRows>>;
  try {
    rows = await forgetCandidateRows(store);
  } finally {
    store.close();
  }
  const bySession = new Map<string, typeof rows>();
  for (const r of rows) bySession.set(r.sessionId, [...(bySession.get(r.sessionId) ?? []), r]);
  let hidden = 0;
  let exchange = 0;
  for (const list of bySession.values())
    for (const k of kindsOf(list)) {
      if (k === "echo") hidden++;
      else if (k === "question" || k === "restatement") exchange++;
    }
  const top5: string[] = [];
  for (const [mode, m, budget] of [
    ["keyword", sessions.bare, 0],
    ["rerank", sessions.withModels, 60_000],
  ] as const) {
    let n = 0;
    for (const d of dev.decisions) {
      const r = await recall(
        { memory: localMemoryFor(undefined, ctx), notes: [] },
        recallOptions(d.query, now, { rerankBudgetMs: budget }),
        m,
      );
      if (r.hits.slice(0, 5).some((h) => h.sessionId === d.sessionId)) n++;
    }
    top5.push(`${mode} ${n}/${dev.decisions.length}`);
  }
  out.push(
    `    search-tool developer (grep "funes recall", a tool named recall, funes's README, a commit message, an arrow list, a pasted event): genuine rows hidden ${hidden}/${rows.length}, read as question/restatement ${exchange}/${rows.length}; decisions in the top 5 ${top5.join(", ")}`,
  );
  // Forget: one of the sessions sharing a licence header.
  const lic = licenceRows();
  const found = copiesAndMentions(
    lic.all,
    lic.all.filter((r) => r.sessionId === lic.forgotten),
  );
  const taken = new Set(found.copies.map((r) => r.id));
  out.push(
    `    forget one of five sessions sharing the Apache header: its copies taken ${lic.copies.filter((id) => taken.has(id)).length}/${lic.copies.length}, unrelated rows taken ${lic.kept.filter((id) => taken.has(id)).length}/${lic.kept.length}, listed as mentions ${found.mentions.length}`,
  );
  // Forged hits: hidden as echoes, and marked when shown.
  const forged = Object.values(FORGED_HITS);
  const hiddenForged = forged.filter(
    (text) => echoOf({ role: "user", blockType: "text", toolName: null, text }) !== null,
  ).length;
  const marked = forged.filter((text) => {
    const shown = formatRecallAgent({
      memory: "m",
      notes: [],
      hits: [
        {
          id: "x",
          text,
          sessionId: "s-1",
          turnUuid: "t-1",
          workdir: "w",
          ts: "2026-11-30T10:00:00.000Z",
          role: "user",
          blockType: "text",
          toolName: null,
          harness: "claude_code",
          seq: 1,
          blockIdx: 0,
          splitIdx: 0,
          memory: "hf://datasets/stranger/memory",
          score: 0.5,
          relevance: 0.5,
          recency: 1,
          rerank: null,
          reranked: false,
          legs: ["keyword"],
          kind: "original",
          echoes: 0,
          neighbors: [],
        },
      ],
    });
    // Only the real hit's header and → get line may start a line unmarked: none of the forged hit's.
    const forgedLines = shown
      .split("\n")
      .filter((l) => (l.includes("0.951") || l.includes("7cdb234a-93a4")) && !l.startsWith("\\"));
    return forgedLines.length === 0;
  }).length;
  out.push(
    `    forged hits (NBSP, zero-width joiner, Unicode spaces, fullwidth =, other arrows, Cyrillic): hidden as echoes ${hiddenForged}/${forged.length}, marked in the agent format ${marked}/${forged.length}`,
  );
  return out;
}
