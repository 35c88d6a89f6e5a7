/**
 * Held-back retrieval corpora (issue 11's "a ranking rule that holds for any dates and vocabulary"), built
 * unlike quality-corpus.ts on purpose: other words (the most frequent words of the real fixture
 * transcripts), other layouts and other dates. One memory mixes the real Claude Code, Codex, pi and Hermes
 * fixture sessions with generated Claude Code sessions; each case is a question, the one session that
 * answers it, and newer sessions that are weaker matches for it.
 *
 * Kinds:
 * - `old`: the answer is years old; many sessions of the last weeks repeat the question's common words.
 * - `identifier`: the question quotes an exact error message with a coined identifier; newer sessions
 *   carry the same error template with other identifiers.
 * - `short`: a two-word question, a coined name and a common word; newer sessions use the common word.
 * - `long`: a pasted log of about 150 words (over 64 distinct), its distinctive line at the end; the
 *   answer's session quoted that last line, newer sessions three of the generic lines each. BM25 ranks
 *   the newer sessions' logs high (they match more of the paste): the case asks only that the failing
 *   line reaches the candidates at all.
 * - `undated`: the answer is dated; every newer-looking session has no timestamp, a garbage one, or one
 *   far in the future.
 * - `revised`: a decision and its revision (the answer) in the same words; their gap is hours (`spread`
 *   `day`) or years (`years`).
 * - `reworded`: the question names two stems (`commit render`), the answer only compounds of them
 *   (`commitlog`, `renderpass`): no shared word, so only the vector leg and the cross-encoder relate them;
 *   newer sessions share the question's third, common word.
 * - `wordy`: six common words and a coined name; the answer has the name and three of the words, newer
 *   sessions four of the words (their turns, like the answer's, say "we": no function word marks the
 *   answer).
 * - `real`: the answer is a real fixture session (Hermes, Codex or pi, at its own date), asked in words of
 *   its own text; newer generated Claude sessions share some of those words.
 *
 * `spread` sets the dates: `day` puts every generated session within one day; `years` over five years.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRACES } from "./fixtures.js";

/** Kinds of held-back case. */
export type HeldoutKind =
  | "old"
  | "identifier"
  | "short"
  | "long"
  | "undated"
  | "revised"
  | "real"
  | "reworded"
  | "wordy";

/** One question and the session holding its answer. */
export interface HeldoutCase {
  kind: HeldoutKind;
  query: string;
  answerSession: string;
}

/** What was written. */
export interface HeldoutCorpus {
  home: string;
  now: number;
  cases: HeldoutCase[];
}

/** Options. */
export interface HeldoutOptions {
  home: string;
  seed: number;
  spread: "day" | "years";
  /** Newer, weaker sessions per case. */
  distractors: number;
  now?: number;
}

const DAY = 86_400_000;

/** Frequent words of the real fixture transcripts (counted over test/fixtures/traces). */
export const COMMON =
  `test code build version file error cache session tool project path check status config task
node result data plan write read service function theme model agent context window command output input
update users create`.split(/\s+/);

const FILLER = `then we reran the suite and looked at the diff again before moving on since the rest of the
change was small and nobody wanted to touch the release branch this late in the week`.split(/\s+/);

export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let t = s ^ (s >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return ((t ^ (t >>> 15)) >>> 0) / 4294967296;
  };
}

export class Gen {
  private coined = new Set<string>();
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
  /** A made-up word no other call returns (`quzeltor`). */
  coin(): string {
    for (;;) {
      const w = Array.from(
        { length: this.int(3, 4) },
        () => this.pick([..."bcdfghjklmnpqrstvwxz"]) + this.pick([..."aeiouy"]),
      ).join("");
      if (!this.coined.has(w)) {
        this.coined.add(w);
        return w;
      }
    }
  }
  uuid(): string {
    const h = (n: number) => Array.from({ length: n }, () => Math.floor(this.r() * 16).toString(16)).join("");
    return `${h(8)}-${h(4)}-4${h(3)}-b${h(3)}-${h(12)}`;
  }
}

/** A timestamp as written: a time, or none, or text that is no time. */
export type Stamp = number | "missing" | "garbage";

export interface Turn {
  role: "user" | "assistant";
  text: string;
}

export function claudeSession(g: Gen, id: string, start: Stamp, turns: Turn[]): string {
  let parent: string | null = null;
  return `${turns
    .map((t, i) => {
      const uuid = g.uuid();
      const rec: Record<string, unknown> = {
        type: t.role,
        uuid,
        parentUuid: parent,
        sessionId: id,
        cwd: "/home/dev/heldout",
        message: { role: t.role, content: t.role === "user" ? t.text : [{ type: "text", text: t.text }] },
      };
      if (start === "garbage") rec.timestamp = "yesterday-ish";
      else if (start !== "missing") rec.timestamp = new Date(start + i * 45_000).toISOString();
      parent = uuid;
      return JSON.stringify(rec);
    })
    .join("\n")}\n`;
}

/** Writes the corpus under `o.home`; returns its cases. */
export function writeHeldoutCorpus(o: HeldoutOptions): HeldoutCorpus {
  const g = new Gen(rng(o.seed));
  const now = o.now ?? Date.parse("2026-11-30T18:00:00Z");
  const claudeDir = join(o.home, ".claude", "projects", "-home-dev-heldout");
  const codexDir = join(o.home, ".codex", "sessions", "2026", "06", "23");
  const piDir = join(o.home, ".pi", "agent", "sessions", "--Users-gibbon-Desktop-pi-share-hf--");
  const hermesDir = join(o.home, ".hermes", "sessions");
  for (const d of [claudeDir, codexDir, piDir, hermesDir]) mkdirSync(d, { recursive: true });
  // The real sessions of all four agents, unchanged, at their own dates (2025-09 to 2026-06).
  copyFileSync(join(TRACES, "claude", "claude_session.jsonl"), join(claudeDir, "claude_session.jsonl"));
  copyFileSync(
    join(TRACES, "codex", "codex_session.jsonl"),
    join(codexDir, "rollout-2026-06-23T05-37-02-019ef2fb-6574-7f83-bd99-9118713271f2.jsonl"),
  );
  copyFileSync(
    join(TRACES, "pi", "pi_session.jsonl"),
    join(piDir, "2026-04-13T09-28-54-581Z_7028acdd-e85a-4fa0-88a5-71f4103333a0.jsonl"),
  );
  copyFileSync(
    join(TRACES, "hermes", "20250912_101500_a1b2c3.jsonl"),
    join(hermesDir, "20250912_101500_a1b2c3.jsonl"),
  );

  // Ages in days: `day` keeps everything within the last 20 hours, `years` spreads it over five years.
  const span = o.spread === "day" ? 20 / 24 : 5 * 365;
  const oldAge = () => span * (0.6 + 0.4 * g.r());
  const newAge = (below: number) => below * 0.5 * g.r();
  const write = (at: Stamp, turns: Turn[]): string => {
    const id = g.uuid();
    writeFileSync(join(claudeDir, `${id}.jsonl`), claudeSession(g, id, at, turns));
    return id;
  };
  const ago = (days: number) => now - days * DAY;
  const cases: HeldoutCase[] = [];
  const distract = (n: number, below: number, turn: () => Turn[], at?: () => Stamp) => {
    for (let i = 0; i < n; i++) write(at?.() ?? ago(newAge(below)), turn());
  };

  // old
  for (let i = 0; i < 3; i++) {
    const [c1, c2, c3] = g.sample(COMMON, 3) as [string, string, string];
    const [name, sub] = [g.coin(), g.coin()];
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `how should the ${sub} ${c1} work? ${g.filler(7)}` },
      {
        role: "assistant",
        text: `The ${sub} ${c1} goes through ${name}, which keeps the ${c2} ${c3} small.`,
      },
    ]);
    cases.push({
      kind: "old",
      query: `why does the ${sub} ${c1} use ${name} for ${c2} ${c3}`,
      answerSession: answer,
    });
    distract(o.distractors, age, () => [
      { role: "user", text: `the ${c1} ${c2} broke, check the ${c3} ${g.pick(COMMON)} ${g.filler(6)}` },
      {
        role: "assistant",
        text: `Fixed the ${c1} ${c2} ${c3}; the ${c1} ${g.pick(COMMON)} passes. ${g.filler(9)}`,
      },
    ]);
  }

  // wordy
  for (let i = 0; i < 3; i++) {
    const cs = g.sample(COMMON, 6);
    const name = g.coin();
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `what should we do about the ${cs.slice(0, 2).join(" ")}? ${g.filler(6)}` },
      { role: "assistant", text: `We moved the ${cs.slice(0, 3).join(" ")} to ${name}. ${g.filler(6)}` },
    ]);
    cases.push({
      kind: "wordy",
      query: `how did we fix the ${cs.join(" ")} problem with ${name}`,
      answerSession: answer,
    });
    distract(o.distractors, age, () => [
      { role: "user", text: `we hit the ${g.sample(cs, 4).join(" ")} problem again ${g.filler(6)}` },
      { role: "assistant", text: `Fixed the ${g.sample(cs, 4).join(" ")}; ${g.filler(8)}` },
    ]);
  }

  // reworded
  const stems = g.sample(["commit", "render", "publish", "index", "merge", "parse", "search", "embed"], 6);
  for (let i = 0; i < 3; i++) {
    const [a, b] = [stems[2 * i] as string, stems[2 * i + 1] as string];
    const c = g.pick(COMMON);
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `${g.filler(8)}` },
      { role: "assistant", text: `the ${a}log now runs before the ${b}pass ${g.filler(6)}` },
    ]);
    cases.push({ kind: "reworded", query: `${a} ${b} ${c}`, answerSession: answer });
    distract(o.distractors, age, () => [
      { role: "user", text: `the ${c} is off again ${g.filler(6)}` },
      { role: "assistant", text: `Fixed the ${c}; ${g.filler(8)}` },
    ]);
  }

  // identifier
  for (let i = 0; i < 3; i++) {
    const key = `${g.coin()}${g.pick(["Map", "Index", "Ref", "Store"])}`;
    const file = `src/${g.coin()}/${g.coin()}.ts`;
    const line = g.int(12, 400);
    const error = (k: string, f: string, l: number) =>
      `TypeError: Cannot read properties of undefined (reading '${k}') at ${f}:${l}`;
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `this fails on start:\n${error(key, file, line)}` },
      { role: "assistant", text: `The ${key} was read before the loader ran; moved the read into init().` },
    ]);
    cases.push({ kind: "identifier", query: error(key, file, line), answerSession: answer });
    distract(o.distractors, age, () => [
      {
        role: "user",
        text: `again:\n${error(`${g.coin()}Map`, `src/${g.coin()}/${g.coin()}.ts`, g.int(12, 400))}`,
      },
      {
        role: "assistant",
        text: `Cannot read properties of undefined: the ${g.pick(COMMON)} was not set yet. ${g.filler(8)}`,
      },
    ]);
  }

  // short
  for (let i = 0; i < 3; i++) {
    const c = g.pick(COMMON);
    const name = g.coin();
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `what is ${name}? ${g.filler(6)}` },
      {
        role: "assistant",
        text: `${name} is the ${c} we wrote to replace the vendored one; it lives in tools/${name}.`,
      },
    ]);
    cases.push({ kind: "short", query: `${name} ${c}`, answerSession: answer });
    distract(o.distractors, age, () => [
      { role: "user", text: `the ${c} is slow ${g.filler(8)}` },
      { role: "assistant", text: `The ${c} ${c} spends its time in ${g.pick(COMMON)}; ${g.filler(10)}` },
    ]);
  }

  // long
  for (let i = 0; i < 3; i++) {
    const generic = Array.from(
      { length: 24 },
      (_, k) => `[${k + 100}] info ${g.coin()} ${g.pick(COMMON)} ${g.pick(COMMON)} ok`,
    );
    const tail = `fatal: ${g.coin()} handshake refused by ${g.coin()}`;
    const paste = [...generic, tail].join("\n");
    const age = oldAge();
    const answer = write(ago(age), [
      { role: "user", text: `deploy died with ${tail}` },
      {
        role: "assistant",
        text: `That handshake is refused when the peer's certificate expired; renewed it. ${g.filler(6)}`,
      },
    ]);
    cases.push({ kind: "long", query: `what does this mean?\n${paste}`, answerSession: answer });
    distract(o.distractors, age, () => [
      { role: "user", text: `log from the run:\n${g.sample(generic, 3).join("\n")}` },
      { role: "assistant", text: `All ${g.pick(COMMON)} steps passed. ${g.filler(8)}` },
    ]);
  }

  // undated
  for (let i = 0; i < 3; i++) {
    const [c1, c2] = g.sample(COMMON, 2) as [string, string];
    const name = g.coin();
    const answer = write(ago(oldAge()), [
      { role: "user", text: `where does ${name} keep its ${c1}? ${g.filler(5)}` },
      { role: "assistant", text: `${name} keeps its ${c1} ${c2} under var/${name}; ${g.filler(7)}` },
    ]);
    cases.push({ kind: "undated", query: `where does ${name} keep the ${c1} ${c2}`, answerSession: answer });
    const stamps: (() => Stamp)[] = [() => "missing", () => "garbage", () => ago(-365 * g.int(1, 70))];
    distract(
      o.distractors,
      0,
      () => [
        { role: "user", text: `where does the ${c1} ${c2} go? ${g.filler(7)}` },
        { role: "assistant", text: `The ${c1} ${c2} goes where the ${g.pick(COMMON)} says. ${g.filler(9)}` },
      ],
      () => (g.pick(stamps) as () => Stamp)(),
    );
  }

  // revised
  for (let i = 0; i < 3; i++) {
    const c = g.pick(COMMON);
    const [subject, first, second] = [g.coin(), g.coin(), g.coin()];
    const age = oldAge();
    write(ago(age), [
      { role: "user", text: `which ${c} for ${subject}? ${g.filler(5)}` },
      { role: "assistant", text: `Use ${first} as the ${subject} ${c}.` },
    ]);
    const answer = write(ago(age * 0.5), [
      { role: "user", text: `${first} keeps failing for ${subject}. ${g.filler(5)}` },
      { role: "assistant", text: `Use ${second} as the ${subject} ${c} from now on; ${first} is gone.` },
    ]);
    cases.push({ kind: "revised", query: `which ${c} does ${subject} use`, answerSession: answer });
    distract(o.distractors, age * 0.5, () => [
      { role: "user", text: `the ${c} again ${g.filler(7)}` },
      { role: "assistant", text: `Changed the ${c}; ${g.filler(10)}` },
    ]);
  }

  // real: questions in the words of the real sessions, answered by them at their own dates.
  const real: { query: string; session: string; shared: string[] }[] = [
    {
      query: "which node process was listening on port 8080",
      session: "20250912_101500_a1b2c3",
      shared: ["node", "process", "port", "listening"],
    },
    {
      query: "portfolio website for a graphic designer",
      session: "019ef2fb-6574-7f83-bd99-9118713271f2",
      shared: ["website", "designer", "portfolio"],
    },
    {
      query: "3D digital twin of Earth photo-realistic",
      session: "claude_session",
      shared: ["digital", "earth", "3D"],
    },
  ];
  for (const r of real) {
    cases.push({ kind: "real", query: r.query, answerSession: r.session });
    distract(o.distractors, 30, () => [
      { role: "user", text: `the ${g.pick(r.shared)} ${g.pick(COMMON)} needs a fix ${g.filler(7)}` },
      { role: "assistant", text: `Updated the ${g.pick(r.shared)} ${g.pick(COMMON)}; ${g.filler(10)}` },
    ]);
  }
  return { home: o.home, now, cases };
}

/**
 * Two memories of very different sizes, read together (federated): a small one (a teammate's, a few
 * sessions) holds each answer; a large one holds many newer sessions with the question's common words.
 * BM25 weighs a word by how rare it is in its own memory, so the same exact match scores lower in a small
 * memory than in a large one.
 */
export function writeFederatedCorpus(o: {
  small: string;
  large: string;
  seed: number;
  distractors: number;
  /** Other sessions in the small memory per case. */
  smallSessions: number;
  now?: number;
}): { now: number; cases: HeldoutCase[] } {
  const g = new Gen(rng(o.seed));
  const now = o.now ?? Date.parse("2026-11-30T18:00:00Z");
  const dirs = [o.small, o.large].map((h) => {
    const d = join(h, ".claude", "projects", "-home-dev-fed");
    mkdirSync(d, { recursive: true });
    return d;
  });
  const write = (dir: string, at: number, turns: Turn[]): string => {
    const id = g.uuid();
    writeFileSync(join(dir, `${id}.jsonl`), claudeSession(g, id, at, turns));
    return id;
  };
  const cases: HeldoutCase[] = [];
  for (let i = 0; i < 3; i++) {
    const [c1, c2, c3] = g.sample(COMMON, 3) as [string, string, string];
    const name = g.coin();
    const age = g.int(60, 400);
    const answer = write(dirs[0] as string, now - age * DAY, [
      { role: "user", text: `the ${c1} ${c2} needs something for ${c3} ${g.filler(5)}` },
      { role: "assistant", text: `We settled on ${name} for the ${c1} ${c2} ${c3}. ${g.filler(8)}` },
    ]);
    for (let k = 0; k < o.smallSessions; k++)
      write(dirs[0] as string, now - g.int(1, age) * DAY, [
        { role: "user", text: `${g.coin()} ${g.filler(9)}` },
        { role: "assistant", text: `${g.coin()} ${g.filler(12)}` },
      ]);
    cases.push({
      kind: "old",
      query: `what did we settle on for the ${c1} ${c2} ${c3}, ${name}?`,
      answerSession: answer,
    });
    for (let d = 0; d < o.distractors; d++)
      write(dirs[1] as string, now - g.r() * age * 0.5 * DAY, [
        { role: "user", text: `the ${c1} ${c2} is off again ${g.filler(6)}` },
        { role: "assistant", text: `Reset the ${c1} ${c2} and the ${c3}; ${g.filler(10)}` },
      ]);
  }
  return { now, cases };
}
