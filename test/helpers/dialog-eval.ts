/**
 * Recall judged on long multi-session conversations no one here wrote (issue 38): LoCoMo's ten dialogs
 * (test/fixtures/recall-eval/README.md), each session written as a Claude Code transcript — one `user` record
 * per turn, "Speaker: text", at the session's own date — and indexed as a user would, one memory per dialog.
 * Every question is asked verbatim; the answer is right when its first hits come from a session that holds
 * the question's evidence. The protocol is the one a lexical peer publishes for this benchmark: recall 20
 * passages and rank the distinct sessions they come from.
 *
 * Plain BM25 (k1 1.2, b 0.75, lowercase words, no stemming, no stop words) over the same turns and over whole
 * sessions is the baseline, computed here so it does not depend on any index's choices.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import {
  indexSessions,
  localMemoryFor,
  ModelSession,
  type ModelsConfig,
  type RecallOptions,
  recall,
  recallOptions,
} from "../../src/commands/index.js";

/** LoCoMo's kinds of question, by its category number. */
export const DIALOG_KINDS: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}
interface RawQa {
  question: string;
  evidence?: string[];
  category: number;
}
interface RawDialog {
  sample_id: string;
  qa: RawQa[];
  conversation: Record<string, unknown>;
}

/** One session of a dialog. */
export interface DialogSession {
  /** Its number in the dialog (`session_3` → 3). */
  n: number;
  /** The session id it is indexed under. */
  id: string;
  /** UTC epoch ms of the session. */
  at: number;
  turns: { diaId: string; text: string }[];
}

/** One question and the sessions that hold its evidence. */
export interface DialogQuestion {
  query: string;
  kind: string;
  gold: Set<string>;
}

/** One dialog: its sessions and questions. */
export interface Dialog {
  id: string;
  sessions: DialogSession[];
  questions: DialogQuestion[];
}

const MONTHS = "january february march april may june july august september october november december".split(
  " ",
);

/** LoCoMo's `1:56 pm on 8 May, 2023` as UTC epoch ms. */
function parseDialogDate(s: string): number {
  const m = /(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (m === null) throw new Error(`dialog eval: unreadable session date "${s}"`);
  const [, hh, mm, ap, dd, mon, yyyy] = m as unknown as string[];
  const month = MONTHS.indexOf((mon as string).toLowerCase());
  const hour = (Number(hh) % 12) + ((ap as string).toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(yyyy), month, Number(dd), hour, Number(mm));
}

/** A stable uuid-shaped id from a name. */
function idOf(name: string): string {
  let h = 2166136261;
  const hex: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const ch of `${round}:${name}`) h = Math.imul(h ^ (ch.codePointAt(0) as number), 16777619) >>> 0;
    hex.push(h.toString(16).padStart(8, "0"));
  }
  const s = hex.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/** The dialogs of a LoCoMo-format file (gzip or plain JSON); questions with no evidence are left out. */
export function loadDialogs(path: string): Dialog[] {
  const buf = readFileSync(path);
  const raw = JSON.parse((path.endsWith(".gz") ? gunzipSync(buf) : buf).toString("utf8")) as RawDialog[];
  return raw.map((d) => {
    const sessions: DialogSession[] = [];
    for (const [key, value] of Object.entries(d.conversation)) {
      const m = /^session_(\d+)$/.exec(key);
      if (m === null || !Array.isArray(value)) continue;
      const n = Number(m[1]);
      const date = d.conversation[`session_${n}_date_time`];
      sessions.push({
        n,
        id: idOf(`${d.sample_id}/session_${n}`),
        at: parseDialogDate(String(date)),
        turns: (value as RawTurn[]).map((t) => ({ diaId: t.dia_id, text: `${t.speaker}: ${t.text}` })),
      });
    }
    sessions.sort((a, b) => a.n - b.n);
    const byN = new Map(sessions.map((s) => [s.n, s.id]));
    const questions: DialogQuestion[] = [];
    for (const q of d.qa) {
      const gold = new Set<string>();
      for (const e of q.evidence ?? []) {
        // Evidence ids are `D<session>:<turn>`; a few are written `D8:6; D9:17` in one string.
        for (const m of e.matchAll(/D(\d+):\d+/g)) {
          const id = byN.get(Number(m[1]));
          if (id !== undefined) gold.add(id);
        }
      }
      if (gold.size > 0)
        questions.push({ query: q.question, kind: DIALOG_KINDS[q.category] ?? "other", gold });
    }
    return { id: d.sample_id, sessions, questions };
  });
}

/** Writes a dialog's sessions as Claude Code transcripts under `home/.claude/projects/`. */
export function writeDialogHome(d: Dialog, home: string, opts: { uuids: boolean } = { uuids: true }): void {
  const project = join(home, ".claude", "projects", `-dialogs-${d.id}`);
  mkdirSync(project, { recursive: true });
  for (const s of d.sessions) {
    const lines = s.turns.map((t, i) => {
      const rec: Record<string, unknown> = {
        type: "user",
        sessionId: s.id,
        cwd: `/dialogs/${d.id}`,
        timestamp: new Date(s.at + i * 30_000).toISOString(),
        message: { role: "user", content: t.text },
      };
      if (opts.uuids) {
        rec.uuid = idOf(`${s.id}/${t.diaId}`);
        rec.parentUuid = i === 0 ? null : idOf(`${s.id}/${s.turns[i - 1]?.diaId}`);
      }
      return JSON.stringify(rec);
    });
    writeFileSync(join(project, `${s.id}.jsonl`), `${lines.join("\n")}\n`);
  }
}

/** How recall is run: funes's modes, and plain BM25 over turns or over whole sessions. */
export type DialogMode = "bm25-turns" | "bm25-sessions" | "keyword" | "hybrid" | "default";

/** Session ranks (0-based, null = not in the list) per question kind. */
export type DialogRanks = Map<string, (number | null)[]>;

function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Textbook BM25 over documents; returns document indexes best first (only those matching a term). */
function bm25Rank(docs: string[][], query: string[]): number[] {
  const k1 = 1.2;
  const b = 0.75;
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    return tf;
  });
  const q = [...new Set(query)];
  const scores = tfs.map((tf, i) => {
    let s = 0;
    const len = (docs[i] as string[]).length;
    for (const w of q) {
      const f = tf.get(w);
      if (f === undefined) continue;
      const n = df.get(w) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * len) / avg));
    }
    return s;
  });
  return scores
    .map((s, i) => ({ s, i }))
    .filter((x) => x.s > 0)
    .sort((x, y) => y.s - x.s || x.i - y.i)
    .map((x) => x.i);
}

/** Distinct values in order. */
function distinct(xs: string[]): string[] {
  return [...new Set(xs)];
}

function rankOf(order: string[], gold: Set<string>): number | null {
  const i = order.findIndex((s) => gold.has(s));
  return i < 0 ? null : i;
}

/** Options for one evaluation run. */
export interface DialogEvalOptions {
  dir: string;
  dialogs: Dialog[];
  modes: DialogMode[];
  /** Generated models (hybrid and default); keyword-only reads `emptyHubCache`. */
  models: ModelsConfig;
  emptyHubCache: string;
  /** Passages recalled per question (the protocol's 20). */
  k?: number;
  /** Rerank budget for `default` (tests lift it so a busy machine reranks the whole pool). */
  rerankBudgetMs?: number;
  /** Whether the transcripts' records carry uuids (default true; Claude-shaped exports often do not). */
  uuids?: boolean;
  /** Recall options other than the defaults (for experiments: `halfLifeDays`, `candidates`). */
  recall?: Partial<RecallOptions>;
}

/** Indexes every dialog as its own memory and ranks every question's sessions in every mode. */
export async function evaluateDialogs(o: DialogEvalOptions): Promise<Map<DialogMode, DialogRanks>> {
  const k = o.k ?? 20;
  const out = new Map<DialogMode, DialogRanks>(o.modes.map((m) => [m, new Map()]));
  const push = (mode: DialogMode, kind: string, r: number | null) => {
    const ranks = out.get(mode) as DialogRanks;
    const list = ranks.get(kind) ?? [];
    list.push(r);
    ranks.set(kind, list);
  };
  const withModels = new ModelSession(o.models);
  const bare = new ModelSession({ ...o.models, hubCache: o.emptyHubCache });
  try {
    for (const d of o.dialogs) {
      const home = join(o.dir, d.id, "home");
      const funesHome = join(o.dir, d.id, "funes");
      writeDialogHome(d, home, { uuids: o.uuids ?? true });
      const last = Math.max(...d.sessions.map((s) => s.at));
      const now = last + 30 * 86_400_000;
      const needsVectors = o.modes.some((m) => m === "hybrid" || m === "default");
      await indexSessions({
        funesHome,
        home,
        thinking: true,
        models: needsVectors ? o.models : { ...o.models, hubCache: o.emptyHubCache },
        vectorBudgetMs: null,
        now: () => now,
      });
      const memory = { memory: localMemoryFor(undefined, { funesHome, home }), notes: [] };
      const turnDocs = d.sessions.flatMap((s) =>
        s.turns.map((t) => ({ session: s.id, words: tokens(t.text) })),
      );
      const sessionDocs = d.sessions.map((s) => tokens(s.turns.map((t) => t.text).join(" ")));
      for (const q of d.questions) {
        for (const mode of o.modes) {
          let order: string[];
          if (mode === "bm25-turns") {
            order = distinct(
              bm25Rank(
                turnDocs.map((t) => t.words),
                tokens(q.query),
              )
                .slice(0, k)
                .map((i) => (turnDocs[i] as { session: string }).session),
            );
          } else if (mode === "bm25-sessions") {
            order = bm25Rank(sessionDocs, tokens(q.query)).map((i) => (d.sessions[i] as DialogSession).id);
          } else {
            const budget = mode === "default" ? o.rerankBudgetMs : 0;
            const opts = recallOptions(q.query, now, {
              k,
              ...o.recall,
              ...(budget === undefined ? {} : { rerankBudgetMs: budget }),
            });
            const r = await recall(memory, opts, mode === "keyword" ? bare : withModels);
            order = distinct(r.hits.map((h) => h.sessionId));
          }
          push(mode, q.kind, rankOf(order, q.gold));
        }
      }
    }
  } finally {
    await withModels.close();
    await bare.close();
  }
  return out;
}

/** R@1, R@5 and MRR of some ranks. */
export function dialogScore(ranks: (number | null)[]): { n: number; r1: number; r5: number; mrr: number } {
  const n = ranks.length;
  const hit = (c: number) => ranks.filter((r) => r !== null && r < c).length / Math.max(1, n);
  const mrr = ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / (r + 1)), 0) / Math.max(1, n);
  return { n, r1: hit(1), r5: hit(5), mrr };
}

/** The results as a table: kinds down (and all), modes across, `R@1 / R@5 / MRR`. */
export function formatDialogs(results: Map<DialogMode, DialogRanks>): string {
  const modes = [...results.keys()];
  const kinds = [...new Set(modes.flatMap((m) => [...(results.get(m) as DialogRanks).keys()]))].sort();
  const cell = (ranks: (number | null)[] | undefined) => {
    if (ranks === undefined) return "";
    const s = dialogScore(ranks);
    return `${(100 * s.r1).toFixed(1)} / ${(100 * s.r5).toFixed(1)} / ${s.mrr.toFixed(3)}`;
  };
  const all = (m: DialogMode) => [...(results.get(m) as DialogRanks).values()].flat();
  const rows = [["kind (questions)", ...modes]];
  for (const kind of kinds) {
    const n = (results.get(modes[0] as DialogMode) as DialogRanks).get(kind)?.length ?? 0;
    rows.push([`${kind} (${n})`, ...modes.map((m) => cell((results.get(m) as DialogRanks).get(kind)))]);
  }
  rows.push([`all (${all(modes[0] as DialogMode).length})`, ...modes.map((m) => cell(all(m)))]);
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ")).join("\n");
}

/** Several runs' ranks as one (the same modes in each). */
export function mergeDialogRanks(runs: Map<DialogMode, DialogRanks>[]): Map<DialogMode, DialogRanks> {
  const out = new Map<DialogMode, DialogRanks>();
  for (const run of runs)
    for (const [mode, ranks] of run) {
      const into = out.get(mode) ?? new Map<string, (number | null)[]>();
      for (const [kind, list] of ranks) into.set(kind, [...(into.get(kind) ?? []), ...list]);
      out.set(mode, into);
    }
  return out;
}
