import { describe, expect, it } from "vitest";
import { mergeCard, renderCard, sizeCategory } from "./card.js";

const stats = {
  repo: "acme/kb",
  chunks: 21_636,
  embeddingModel: "BAAI/bge-small-en-v1.5",
  date: "2026-11-29",
};

describe("dataset card", () => {
  it("bands sizes with strict bounds", () => {
    expect([0, 999, 1000, 9999, 10_000, 99_999, 100_000, 2e12].map(sizeCategory)).toEqual([
      "n<1K",
      "n<1K",
      "1K<n<10K",
      "1K<n<10K",
      "10K<n<100K",
      "10K<n<100K",
      "100K<n<1M",
      "n>1T",
    ]);
  });

  it("creates a card with the funes tag, the size band, a recall example and the stats block", () => {
    const card = renderCard(stats);
    expect(card).toMatch(/^---\npretty_name: funes memory\ntags:\n {2}- funes\n/);
    expect(card).toContain("size_categories:\n  - 10K<n<100K\n---\n");
    expect(card).toContain('funes recall "what did we decide about …" --memory acme/kb');
    expect(card).toContain(
      "<!-- funes:stats -->\n| | |\n|---|---|\n| Chunks | 21,636 |\n| Embedding model | `BAAI/bge-small-en-v1.5` |\n| Updated | 2026-11-29 |\n<!-- /funes:stats -->",
    );
    expect(card).not.toMatch(/license|configs|dataset_info/);
  });

  it("counts sessions per agent, every agent funes reads, and none for a memory without the facet", () => {
    const agents = ["claude_code", "codex", "pi", "hermes", "gemini", "qwen", "opencode", "copilot"].map(
      (harness, i) => ({ harness, sessions: 1000 * (8 - i) }),
    );
    const card = renderCard({ ...stats, agents });
    expect(card).toContain(
      "| Sessions by agent | claude_code 8,000, codex 7,000, pi 6,000, hermes 5,000, gemini 4,000, qwen 3,000, opencode 2,000, copilot 1,000 |",
    );
    expect(renderCard({ ...stats, agents: [{ harness: "", sessions: 3 }] })).not.toContain("by agent");
    expect(renderCard({ ...stats, agents: [{ harness: "a|b c", sessions: 1 }] })).toContain("| a_b_c 1 |");
  });

  it("says what was scanned for secrets and its limits, without promising that secrets are gone", () => {
    const card = renderCard(stats);
    expect(card).toContain("funes scanned this text for credentials");
    expect(card).toContain("not every secret");
    expect(card).not.toMatch(/secrets are redacted/i);
  });

  it("rewrites only the stats block, and never a hand-written card", () => {
    expect(mergeCard(null, stats).action).toBe("created");
    const owned = `# Our team memory\n\nNotes by hand.\n\n${renderCard(stats).slice(renderCard(stats).indexOf("<!-- funes:stats -->"))}`;
    const later = mergeCard(owned, { ...stats, chunks: 30_000 });
    expect(later.action).toBe("refreshed");
    expect(later.text).toContain("# Our team memory\n\nNotes by hand.\n\n<!-- funes:stats -->");
    expect(later.text).toContain("| Chunks | 30,000 |");
    expect(mergeCard(later.text, { ...stats, chunks: 30_000 }).action).toBe("unchanged");
    expect(mergeCard("# Hand-written, no markers\n", stats)).toEqual({ action: "hand-written", text: null });
    expect(mergeCard("<!-- /funes:stats --> then <!-- funes:stats -->", stats).action).toBe("hand-written");
  });
});
