/**
 * Generated retrieval-quality corpora: Claude Code sessions with known answers, laid out under a home as the
 * agent stores them. Each case is a question and the session that answers it, hidden among newer sessions
 * that share the question's common words. Words, dates and layouts are drawn from a seeded generator, so a
 * seed is a fresh corpus: ranking is judged on the class of case, never on one wording.
 *
 * Kinds (issue 11):
 * - `old`: the answer is weeks or months old; newer sessions repeat the question's common words.
 * - `reworded`: the answer shares no whole word with the question, only word stems (`index` → `indexer`),
 *   so only an embedder that splits words into pieces can relate them (what a bag-of-words test model can
 *   show; real paraphrase needs a real model).
 * - `revised`: a decision made, then revised in a later session; the revision is the answer.
 * - `tool`: the answer sits inside a tool result (JSON-escaped command output), not in prose.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Kinds of case. */
export type CaseKind = "old" | "reworded" | "revised" | "tool";

/** One question and where its answer is. */
export interface QualityCase {
  kind: CaseKind;
  query: string;
  /** The session holding the answer. */
  answerSession: string;
  /** The memory (index into `homes`) whose sessions hold the answer. */
  memory: number;
}

/** What was written. */
export interface QualityCorpus {
  cases: QualityCase[];
  /** One home per memory; each holds `~/.claude/projects/…` sessions. */
  homes: string[];
  /** The clock the ages are relative to (epoch ms). */
  now: number;
  sessions: number;
}

/** Options for one corpus. */
export interface QualityOptions {
  /** Root folder; homes go under it. */
  dir: string;
  seed: number;
  /** Cases per kind. */
  perKind: number;
  kinds: CaseKind[];
  /** Newer sessions written per case that share its common words. */
  distractors: number;
  /** Memories to spread sessions over (1 = a single memory). */
  memories: number;
  now?: number;
}

const DAY = 86_400_000;

/** Common words of coding sessions: what every newer session repeats. */
const COMMON = `flags cache test use build config update fix error file run check change code version
option default value setting script module package command output input path change support issue`.split(
  /\s+/,
);

/** Words that make the distinct topic of a case: each case takes its own, never shared with another. */
const TOPIC = `arrow parquet sqlite lance tokenizer embedding reranker manifest snapshot rollout hermes codex
palette flamingo texture shader globe portfolio designer compaction backfill overlap jitter retry refresh
symlink hardlink deadlock thread mutex semaphore queue scheduler cron daemon socket proxy gateway router
ledger invoice payroll checkout cart coupon voucher shipment warehouse inventory catalog gallery carousel
banner tooltip modal drawer sidebar navbar footer header avatar badge ribbon spinner skeleton chart graph
histogram heatmap sparkline tiles raster vector polygon mesh voxel sprite atlas glyph kerning ligature font
locale currency timezone calendar reminder invite webhook migration schema column trigger cursor replica
shard partition bucket archive tarball zipfile checksum digest signature keystore vault enclave sandbox
container pod cluster node kernel driver firmware bootloader bios partition volume mount quota throttle
limiter breaker fallback circuit canary rollback blue green feature toggle experiment cohort funnel metric
dashboard alert pager incident runbook postmortem oncall escalation ticket sprint backlog epic roadmap`
  .split(/\s+/)
  .filter((w, i, all) => all.indexOf(w) === i);

/**
 * For `reworded` cases: the question names `<stem>`, the answer only a compound identifier `<stem><tail>`
 * (as code names things: `commitlog`, `renderpass`). BM25 (stemmed or not) sees two different words; an
 * embedder that splits words into pieces sees the stem in both.
 */
const STEMS = `index render commit publish embed parse token search cache merge branch release upgrade
build deploy lock pin query backfill rerank`.split(/\s+/);
const TAILS = ["log", "pass", "queue", "mode", "set", "kit"];

const CONSONANTS = "bdfgklmnprstvz".split("");
const VOWELS = "aeiou".split("");

const FILLER = `the team looked at it again after lunch and moved on to other work while the tests ran in the
background and someone asked about the weekend plans before the meeting ended with a short summary of the
next steps for everyone involved in this part of the project`.split(/\s+/);

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly r: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)] as T;
  }
  sample<T>(xs: readonly T[], n: number): T[] {
    const copy = [...xs];
    const out: T[] = [];
    while (out.length < n && copy.length > 0)
      out.push(copy.splice(Math.floor(this.r() * copy.length), 1)[0] as T);
    return out;
  }
  filler(n: number): string {
    const start = this.int(0, FILLER.length - n);
    return FILLER.slice(start, start + n).join(" ");
  }
  id(): string {
    const h = () => Math.floor(this.r() * 16).toString(16);
    const part = (n: number) => Array.from({ length: n }, h).join("");
    return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
  }
}

/** A turn of a generated session: plain text, or a tool call with its output. */
type GenTurn = { role: "user" | "assistant"; text: string } | { tool: string; input: string; output: string };

function sessionLines(g: Gen, sessionId: string, cwd: string, start: number, turns: GenTurn[]): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let t = start;
  const push = (type: "user" | "assistant", content: unknown) => {
    const uuid = g.id();
    lines.push(
      JSON.stringify({
        type,
        uuid,
        parentUuid: parent,
        sessionId,
        cwd,
        timestamp: new Date(t).toISOString(),
        message: { role: type, content },
      }),
    );
    parent = uuid;
    t += 20_000;
  };
  for (const turn of turns) {
    if ("tool" in turn) {
      const id = `toolu_${g.id().replaceAll("-", "")}`;
      push("assistant", [{ type: "tool_use", id, name: turn.tool, input: { command: turn.input } }]);
      push("user", [{ type: "tool_result", tool_use_id: id, content: turn.output }]);
    } else push(turn.role, turn.role === "user" ? turn.text : [{ type: "text", text: turn.text }]);
  }
  return `${lines.join("\n")}\n`;
}

/** Writes a corpus; returns its cases and where its memories' homes are. */
export function writeQualityCorpus(o: QualityOptions): QualityCorpus {
  const g = new Gen(rng(o.seed));
  const now = o.now ?? Date.parse("2026-06-30T12:00:00Z");
  const homes = Array.from({ length: o.memories }, (_, i) => join(o.dir, `home${i}`));
  const projects = homes.map((h, i) => {
    const p = join(h, ".claude", "projects", `-home-dev-proj${i}`);
    mkdirSync(p, { recursive: true });
    return p;
  });
  const topics = g.sample(TOPIC, TOPIC.length);
  const stems = g.sample(STEMS, STEMS.length);
  const cases: QualityCase[] = [];
  let sessions = 0;
  const write = (memory: number, ageDays: number, turns: GenTurn[]): string => {
    const sid = g.id();
    const start = now - ageDays * DAY - g.int(0, 3_600_000);
    writeFileSync(
      join(projects[memory] as string, `${sid}.jsonl`),
      sessionLines(g, sid, `/home/dev/proj${memory}`, start, turns),
    );
    sessions++;
    return sid;
  };
  const used = new Set<string>();
  // The word list first, then made-up identifiers (`vorlek`, `damiru`): names a project coins.
  const takeTopic = (): string => {
    let w = topics.shift();
    while (w === undefined || used.has(w) || COMMON.includes(w)) {
      const syllables = g.int(2, 3);
      w =
        Array.from({ length: syllables }, () => g.pick(CONSONANTS) + g.pick(VOWELS)).join("") +
        g.pick(["", "k", "n", "x", "r"]);
    }
    used.add(w);
    return w;
  };

  for (const kind of o.kinds)
    for (let i = 0; i < o.perKind; i++) {
      const memory = g.int(0, o.memories - 1);
      const common = g.sample(COMMON, 3);
      const [c1, c2, c3] = common as [string, string, string];
      const oldAge = g.int(25, 150);
      let query: string;
      let answer: string;
      let alsoShared: string[];
      if (kind === "old") {
        const [t1, t2] = [takeTopic(), takeTopic()];
        query = `why did we ${g.pick(["choose", "pick", "switch to"])} ${t1} for the ${t2} ${c1} ${c2}`;
        answer = write(memory, oldAge, [
          { role: "user", text: `what should the ${t2} use for its ${c1}? ${g.filler(8)}` },
          {
            role: "assistant",
            text: `We decided on ${t1} for the ${t2} ${c1} because the ${c2} ${c3} kept failing otherwise; ${g.filler(10)}.`,
          },
        ]);
        alsoShared = [t2];
      } else if (kind === "reworded") {
        const stem = stems.shift() ?? g.pick(STEMS);
        const t1 = takeTopic();
        query = `${stem} ${t1}`;
        answer = write(memory, oldAge, [
          { role: "user", text: `a question about ${t1}${g.pick(TAILS)} ${g.filler(6)}` },
          { role: "assistant", text: `the ${stem}${g.pick(TAILS)} handles it now; ${g.filler(12)}.` },
        ]);
        alsoShared = [];
      } else if (kind === "revised") {
        const [subject, first, second] = [takeTopic(), takeTopic(), takeTopic()];
        query = `what do we use for the ${subject} ${c1}`;
        write(memory, oldAge + g.int(10, 60), [
          { role: "user", text: `which ${c1} should the ${subject} use? ${g.filler(6)}` },
          { role: "assistant", text: `We use ${first} for the ${subject} ${c1}; ${g.filler(10)}.` },
        ]);
        answer = write(memory, g.int(5, oldAge), [
          { role: "user", text: `the ${first} ${c1} broke again for the ${subject}. ${g.filler(6)}` },
          {
            role: "assistant",
            text: `We use ${second} for the ${subject} ${c1} now, replacing ${first}; ${g.filler(10)}.`,
          },
        ]);
        alsoShared = [subject];
      } else {
        const [t1, t2] = [takeTopic(), takeTopic()];
        const value = g.int(100, 99_999);
        query = `what is the ${t1} ${t2} ${c1} limit`;
        answer = write(memory, oldAge, [
          { role: "user", text: `show me the ${c1} settings ${g.filler(5)}` },
          {
            tool: "Bash",
            input: `cat ${c2}/settings.json`,
            output: JSON.stringify(
              {
                [`${t1}_${t2}`]: { [`${c1}_limit`]: value, [c2]: true },
                [c3]: "default",
                note: `${t1} ${t2} ${c1} limit raised after the outage`,
              },
              null,
              2,
            ),
          },
          { role: "assistant", text: `Here are the settings. ${g.filler(8)}` },
        ]);
        alsoShared = [t2];
      }
      cases.push({ kind, query, answerSession: answer, memory });
      // Newer sessions full of the question's common words, some also naming one of its topic words.
      for (let d = 0; d < o.distractors; d++) {
        const m = g.int(0, o.memories - 1);
        const shared = alsoShared.length > 0 && g.r() < 0.3 ? `${g.pick(alsoShared)} ` : "";
        write(m, g.int(0, Math.max(1, oldAge - 10)), [
          { role: "user", text: `can you ${c1} the ${c2} and ${c3}? the ${c1} ${c2} ${g.filler(6)}` },
          {
            role: "assistant",
            text: `I will ${c1} the ${shared}${c2} ${c3} and ${g.pick(COMMON)} the ${c1} ${g.pick(COMMON)}; ${g.filler(12)}.`,
          },
        ]);
      }
    }
  return { cases, homes, now, sessions };
}
