/**
 * The dataset card (`README.md`) of a published memory: front matter that makes the memory discoverable
 * (the `funes` tag, a size band), what it is and how to recall from it, and a stats block between
 * `<!-- funes:stats -->` markers, the only part funes ever rewrites. A card without both markers (in order)
 * is the owner's and is never touched. Pure: stats in, text out.
 */

/** What the stats block says. */
export interface CardStats {
  /** `owner/name`. */
  repo: string;
  chunks: number;
  embeddingModel: string;
  /** UTC date of the push, `YYYY-MM-DD`. */
  date: string;
  /** Sessions per agent (the `harness` facet; a memory without it has none), most first. */
  agents?: { harness: string; sessions: number }[];
}

const OPEN = "<!-- funes:stats -->";
const CLOSE = "<!-- /funes:stats -->";

/** The Hub's size band for a row count (strict `<` at each bound). */
export function sizeCategory(n: number): string {
  const bands: [number, string][] = [
    [1e3, "n<1K"],
    [1e4, "1K<n<10K"],
    [1e5, "10K<n<100K"],
    [1e6, "100K<n<1M"],
    [1e7, "1M<n<10M"],
    [1e8, "10M<n<100M"],
    [1e9, "100M<n<1B"],
    [1e10, "1B<n<10B"],
    [1e11, "10B<n<100B"],
    [1e12, "100B<n<1T"],
  ];
  return bands.find(([max]) => n < max)?.[1] ?? "n>1T";
}

/** The stats block, markers included. */
export function statsBlock(s: CardStats): string {
  return [
    OPEN,
    "| | |",
    "|---|---|",
    `| Chunks | ${s.chunks.toLocaleString("en-US")} |`,
    ...(s.agents?.some((a) => a.harness !== "")
      ? [
          `| Sessions by agent | ${s.agents
            .filter((a) => a.harness !== "")
            .map((a) => `${a.harness.replace(/[|\s]/g, "_")} ${a.sessions.toLocaleString("en-US")}`)
            .join(", ")} |`,
        ]
      : []),
    `| Embedding model | \`${s.embeddingModel}\` |`,
    `| Updated | ${s.date} |`,
    CLOSE,
  ].join("\n");
}

/** A new card. */
export function renderCard(s: CardStats): string {
  return `---
pretty_name: funes memory
tags:
  - funes
  - agent-memory
  - agent-traces
  - embeddings
  - lance
size_categories:
  - ${sizeCategory(s.chunks)}
---

# funes memory

This dataset is a memory of coding-agent sessions (Claude Code, Codex, pi, Hermes, Gemini CLI, Qwen Code,
OpenCode, Copilot CLI), published with funes: the sessions' own words in chunks, each with its place in its
session and a \`BAAI/bge-small-en-v1.5\` vector, in one [Lance](https://lancedb.github.io/lance/) table
\`chunks\`.

Before publishing, funes scanned this text for credentials: when it was indexed (values found were replaced
by \`[REDACTED:<rule>]\`) and again before upload (blocks with a finding were held back). The scan is
pattern-based: a catalogue of credential formats, and high-entropy values assigned to secret-looking names.
It finds credentials that have a recognisable shape or label, not every secret; a password written in plain
prose, for example, is not recognised.

Recall from it with funes:

\`\`\`sh
funes recall "what did we decide about …" --memory ${s.repo}
\`\`\`

${statsBlock(s)}

*Published and kept current by \`funes push\`.*
`;
}

/** What merging did to a card. */
export type CardMerge =
  | { action: "created" | "refreshed"; text: string }
  | { action: "unchanged" | "hand-written"; text: null };

/** The card after a push: created when absent, stats block replaced when present, else left alone. */
export function mergeCard(current: string | null, s: CardStats): CardMerge {
  if (current === null) return { action: "created", text: renderCard(s) };
  const open = current.indexOf(OPEN);
  const close = open < 0 ? -1 : current.indexOf(CLOSE, open + OPEN.length);
  if (open < 0 || close < 0) return { action: "hand-written", text: null };
  const next = current.slice(0, open) + statsBlock(s) + current.slice(close + CLOSE.length);
  return next === current ? { action: "unchanged", text: null } : { action: "refreshed", text: next };
}
