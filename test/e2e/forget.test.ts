/**
 * `funes forget` as users run it: locally (rows and their bytes leave the disk, a re-index does not bring
 * them back unless allowed), and on a Hub memory through the loopback stand-in (one compare-and-swap commit,
 * a forget racing a push from another home, `--purge-history` leaving no published byte of the row, lance
 * 7.0.0 reading what is left, the reference's 17 columns unchanged).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLUMNS } from "../../src/local/index.js";
import { type CliEnv, runFunes, runFunesInTerminal, startFunes } from "../helpers/cli.js";
import { commitIds, commitRows } from "../helpers/commit-table.js";
import { copyFixture, TEST_HUB_CACHE, tempDir } from "../helpers/fixtures.js";
import { type HubStandin, standinUser, startHubStandin } from "../helpers/hub-standin.js";

const TOKEN = "hf_standintokenforforgettests";
const EMBED = join(
  TEST_HUB_CACHE,
  "models--BAAI--bge-small-en-v1.5",
  "snapshots",
  "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
);
/** A phrase of one chunk of the codex fixture (stands in for a secret the scanner missed). */
const PHRASE = "im a graphic designer";
const SESSION = "019ef2fb-6574-7f83-bd99-9118713271f2";

let t: { dir: string; cleanup: () => void };
let hub: HubStandin;

function userEnv(name: string): CliEnv {
  const user = standinUser(t.dir, name, hub.url, { HF_TOKEN: TOKEN, FUNES_EMBED_MODEL_DIR: EMBED });
  mkdirSync(join(user.home, ".codex"), { recursive: true });
  return user;
}

/** A home with the codex fixture indexed and embedded. */
async function indexedHome(name: string): Promise<CliEnv> {
  const e = userEnv(name);
  copyFixture("codex", join(e.home, ".codex", "sessions"));
  const r = await runFunes(["index", "--yes"], e);
  expect(r.code, r.stderr).toBe(0);
  return e;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const holds = (b: Buffer, s: string) => b.includes(Buffer.from(s));

function wait(child: ReturnType<typeof startFunes>): Promise<{ code: number | null; out: string }> {
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, out })));
}

/** A commit's files opened with lance 7.0.0 (lancedb 0.30), the reference's Lance. */
async function openWithLance7(files: Map<string, Buffer>) {
  const dir = mkdtempSync(join(t.dir, "lance7-"));
  for (const [p, b] of files) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), b);
  }
  const db = await createRequire(import.meta.url)("lancedb030").connect(dir);
  const table = await db.openTable("chunks");
  return {
    table,
    close: () => {
      table.close();
      db.close();
    },
  };
}

beforeAll(async () => {
  t = tempDir();
  hub = await startHubStandin(new Map());
});
afterAll(async () => {
  await hub.close();
  t.cleanup();
});

describe("funes forget, locally", () => {
  it("previews with the match masked, acts only with --yes, removes the bytes, and re-index keeps them out", async () => {
    const a = await indexedHome("local");
    const memoryFiles = () => filesUnder(join(a.funesHome, "memory")).map((f) => readFileSync(f));
    expect(memoryFiles().some((b) => holds(b, PHRASE))).toBe(true);

    const preview = await runFunes(["forget", "--match", PHRASE], a);
    expect(preview.code).toBe(2);
    expect(preview.stdout).toContain(
      `to forget from the local memory: 1 chunk(s) in 1 session(s)\n  session ${SESSION}`,
    );
    expect(preview.stdout).toContain("user: make me a portfolio website, […]");
    expect(preview.stdout).not.toContain(PHRASE);
    expect(preview.stderr).toContain("nothing was forgotten — re-run with --yes");

    const r = await runFunes(["forget", "--match", PHRASE, "--yes", "--json"], a);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ done: true, forgotten: 1, remembered: true });
    // Not hidden: gone from every file of the memory, old versions included.
    expect(memoryFiles().some((b) => holds(b, PHRASE))).toBe(false);
    const status = await runFunes(["status"], a);
    expect(status.stdout).toContain("chunks: 18\n");
    expect(status.stdout).toContain("forgotten: 1 chunks (`funes forget`; `funes index` leaves them out)\n");

    const again = await runFunes(["index", "--yes", "--json"], a);
    expect(JSON.parse(again.stdout)).toMatchObject({ chunksAdded: 0 });
    // Touching the transcript makes index read it again: the forgotten chunk still stays out.
    const transcript = join(a.home, ".codex", "sessions", "codex_session.jsonl");
    writeFileSync(transcript, `${readFileSync(transcript, "utf8")}\n`);
    expect(JSON.parse((await runFunes(["index", "--yes", "--json"], a)).stdout)).toMatchObject({
      chunksAdded: 0,
    });
    const recall = await runFunes(["recall", "graphic designer", "--rerank-budget", "0"], a);
    expect(recall.stdout).not.toContain(PHRASE);

    // --allow-reindex releases what was forgotten in that session: the next index brings it back.
    const release = await runFunes(
      ["forget", "--session", SESSION, "--match", "no such text", "--allow-reindex", "--yes"],
      a,
    );
    expect(release.code, release.stderr).toBe(0);
    expect(release.stdout).toContain("1 chunk(s) forgotten earlier become indexable again");
    expect(JSON.parse((await runFunes(["index", "--yes", "--json"], a)).stdout)).toMatchObject({
      chunksAdded: 1,
    });
  });

  it("combines selectors, and says clearly when none or a bad one is given", async () => {
    const a = await indexedHome("selectors");
    const none = await runFunes(["forget", "--yes"], a);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      "funes: say what to forget: --session <id>, --turn <session> <turn>, --match <text> (--regex), --since/--until\n",
    );
    const bad = await runFunes(["forget", "--match", "(", "--regex", "--yes"], a);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^funes: --regex "\(" is not a valid regular expression/);
    // A turn of the session and a regex: only chunks satisfying both.
    const r = await runFunes(
      [
        "forget",
        "--turn",
        SESSION,
        `${SESSION}-0`,
        "--match",
        "graphic|nothing",
        "--regex",
        "--json",
        "--yes",
      ],
      a,
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.forgotten).toBe(1);
    expect(s.preview.sessions[0].sessionId).toBe(SESSION);
    const later = await runFunes(["forget", "--since", "2030-01-01", "--yes"], a);
    expect(later.stdout).toBe("nothing in the local memory matches\n");
    // On a terminal it asks: "no" changes nothing, "yes" forgets.
    const no = await runFunesInTerminal(["forget", "--match", "Found 2 files."], a, ["n"]);
    expect(no.stdout).toMatch(/forget these 1 chunk\(s\)\? \[y\/N\] /);
    // The question renders as text: no cursor code of readline's shows up escaped (`\u001b[1G`, `\u000d`).
    expect(no.stdout).not.toMatch(/\\u00[0-9a-f]{2}/);
    expect(no.stdout).toContain("nothing was forgotten");
    // Said no: a run that changed nothing because the user said so, 2 as off a terminal without --yes.
    expect(no.code).toBe(2);
    const yes = await runFunesInTerminal(["forget", "--match", "Found 2 files."], a, ["y"]);
    expect(yes.code, yes.stdout).toBe(0);
    expect(yes.stdout).toContain("forgot 1 chunk(s) from the local memory");
  });
});

describe("funes forget --memory (the Hub)", () => {
  it("forgets in one commit that a racing push from another home cannot undo", async () => {
    const a = await indexedHome("hub-a");
    expect((await runFunes(["push", "acme/forget", "--create"], a)).code).toBe(0);
    const before = await commitIds(hub.repos.get("acme/forget")?.files ?? new Map(), t.dir);
    expect(before.length).toBe(19);
    // A teammate with the same sessions and one more, pushing while the forget runs.
    const b = await indexedHome("hub-b");
    writeFileSync(
      join(b.home, ".codex", "sessions", "extra.jsonl"),
      `${JSON.stringify({ type: "session_meta", timestamp: "2026-06-24T00:00:00Z", payload: { id: "extra-session", cwd: "/w" } })}\n${JSON.stringify({ timestamp: "2026-06-24T00:00:01Z", type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "a question only the teammate asked" }] } })}\n`,
    );
    expect((await runFunes(["index", "--yes"], b)).code).toBe(0);

    const forget = startFunes(
      ["forget", "--session", SESSION, "--memory", "acme/forget", "--yes", "--json"],
      a,
    );
    const push = startFunes(["push", "acme/forget"], b);
    const [f, p] = await Promise.all([wait(forget), wait(push)]);
    expect(f.code, f.out).toBe(0);
    expect(p.code, p.out).toBe(0);
    const summary = JSON.parse(f.out.slice(f.out.indexOf("{")));
    const gone = summary.preview.sessions[0].chunks as number;
    expect(gone).toBeGreaterThan(0);

    const repo = hub.repos.get("acme/forget");
    const rows = await commitRows(repo?.files ?? new Map(), t.dir, ["id", "session_id", "text"]);
    // No forgotten row returned; nothing else was lost; the teammate's new row arrived.
    expect(rows.filter((r) => r.session_id === SESSION)).toEqual([]);
    expect(rows.length).toBe(19 - gone + 1);
    expect(rows.some((r) => r.text === "a question only the teammate asked")).toBe(true);
    // lance 7.0.0 (the reference's) honours the deletion files lance 8 wrote.
    const lance7 = await openWithLance7(repo?.files ?? new Map());
    expect(await lance7.table.countRows()).toBe(19 - gone + 1);
    expect(await lance7.table.countRows(`session_id = '${SESSION}'`)).toBe(0);
    lance7.close();
    const forgotten = JSON.parse(repo?.files.get(".funes-forgotten.json")?.toString("utf8") ?? "{}");
    expect(forgotten.ids.length).toBe(gone);
    expect(repo?.files.get("README.md")?.toString("utf8")).toContain(`| Chunks | ${19 - gone + 1} |`);

    // The teammate pushes again (after the forget, a 412 forced first): the rows still stay out.
    hub.conflicts = 1;
    const again = await runFunes(["push", "acme/forget", "--json"], b);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).published).toBe(0);
    const after = await commitRows(hub.repos.get("acme/forget")?.files ?? new Map(), t.dir, ["session_id"]);
    expect(after.filter((r) => r.session_id === SESSION)).toEqual([]);

    // Readers stop seeing them; the append-only commit only added files (deletion files, a manifest).
    const status = await runFunes(["status", "--memory", "acme/forget"], userEnv("hub-reader"));
    expect(status.stdout).toContain(`chunks: ${19 - gone + 1}\n`);
    expect(status.stdout).toContain(
      `forgotten: ${gone} chunks (\`funes forget\`; every push leaves them out)\n`,
    );
    // The forgetter still holds those rows locally; they are not "pending" (no push sends them).
    const mine = await runFunes(["status", "--memory", "acme/forget"], a);
    expect(mine.stdout).toContain("local push: up to date (2 sessions)\n");
    expect(hub.committedPaths.some((x) => x.startsWith("chunks.lance/_deletions/"))).toBe(true);

    // The teammate's session was pushed as its own data file: once forgotten, no current row uses that
    // file, and `cache prune` drops it from the cached copy, which still reads the same.
    const extra = await runFunes(
      ["forget", "--session", "extra-session", "--memory", "acme/forget", "--yes"],
      a,
    );
    expect(extra.code, extra.stderr).toBe(0);
    const prune = await runFunes(["cache", "prune", "--json"], a);
    expect(JSON.parse(prune.stdout).unused).toBe(1);
    const left = await runFunes(["status", "--memory", "acme/forget"], a);
    expect(left.stdout).toContain(`chunks: ${19 - gone}\n`);
    expect(left.stdout).toContain(`forgotten: ${gone + 1} chunks`);
  });

  it("--purge-history leaves no published byte of the row; lance 7.0.0 reads the rest, 17 columns as the reference's", async () => {
    const a = await indexedHome("purge");
    expect((await runFunes(["push", "acme/purge", "--create"], a)).code).toBe(0);
    // A forget without a purge first: the row is hidden, but its bytes stay in the data file and history.
    // Someone publishes just before its commit: 412, then it selects again on the new head and commits.
    hub.conflicts = 1;
    const hidden = await runFunes(
      ["forget", "--match", PHRASE, "--memory", "acme/purge", "--yes", "--json"],
      a,
    );
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(JSON.parse(hidden.stdout)).toMatchObject({ done: true, forgotten: 1, attempts: 2 });
    const plain = await runFunes(["forget", "--match", "portfolio", "--memory", "acme/purge"], a);
    expect(plain.stdout).toContain("add --purge-history to remove them from it too");
    // Every file of every commit the repo's history holds.
    const published = () => [...(hub.history.get("acme/purge") ?? [])].flatMap((c) => [...c.files.values()]);
    expect(published().some((b) => holds(b, PHRASE))).toBe(true);
    const cachedFiles = () => [
      ...filesUnder(join(a.funesHome, "views")),
      ...filesUnder(join(t.dir, "purge-hf")),
    ];
    expect(cachedFiles().some((f) => holds(readFileSync(f), PHRASE))).toBe(true);

    // A purge with a selector that matches nothing new still rewrites what the earlier forget only hid.
    const purge = await runFunes(
      ["forget", "--match", PHRASE, "--memory", "acme/purge", "--purge-history", "--yes"],
      a,
    );
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toContain("old commit ids stop resolving");
    expect(purge.stdout).toContain("out of reach: forks, PR refs, copies already downloaded");
    expect(purge.stdout).toMatch(/history squashed: the branch is now one commit \([0-9a-f]{8}\)/);
    expect(hub.history.get("acme/purge")?.length).toBe(1);
    expect(published().some((b) => holds(b, PHRASE))).toBe(false);
    // This machine's cached copies of the erased commits are gone too (its own memory is its own business).
    expect(cachedFiles().length).toBeGreaterThan(0);
    expect(cachedFiles().some((f) => holds(readFileSync(f), PHRASE))).toBe(false);

    // lance 7.0.0 opens what is left: 18 rows, every one with its vector, the reference's schema.
    const lance7 = await openWithLance7(hub.repos.get("acme/purge")?.files ?? new Map());
    const table = lance7.table;
    expect(await table.countRows()).toBe(18);
    expect(await table.countRows("vector IS NULL")).toBe(0);
    const schema = await table.schema();
    expect(schema.fields.map((f: { name: string }) => f.name)).toEqual([...COLUMNS]);
    expect(schema.fields.length).toBe(17);
    expect((await table.listIndices()).map((i: { name: string }) => i.name)).toContain("text_idx");
    expect(schema.metadata.get("embedding_model")).toBe("BAAI/bge-small-en-v1.5");
    const texts = (await table.query().select(["text"]).toArray()).map((r: { text: string }) => r.text);
    expect(texts.some((x: string) => x.includes(PHRASE))).toBe(false);
    lance7.close();
    // And the next push from the same home sends nothing back.
    const push = await runFunes(["push", "acme/purge", "--json"], a);
    expect(JSON.parse(push.stdout).published).toBe(0);
  });
});

/**
 * Issue 42's shape: a decision, and an agent that recalls it and retells it in its own words over several
 * exchanges (one inserted word breaks any 16-words-in-a-row match), then once more a few turns later with
 * no recall in that exchange. The same recalls returned another team's decision, which the agent retells
 * too.
 */
const DEC = "4d1b0c3e-0000-4000-8000-00000000d0c1";
const EXP = "4d1b0c3e-0000-4000-8000-00000000e0c1";
const REC = "4d1b0c3e-0000-4000-8000-00000000a0c1";
const DECISION =
  "Decided: journal replay runs backwards from the last checkpoint through ReplayCursor in src/journal/replay.ts, capped at 512 MB with 3 retries; Marta signed off on it.";
const EXPORTS =
  "Decided: the billing export writes Parquet files to s3://ledger-exports nightly at 02:00 through ExportJob, and Tomasz owns it.";
const RETOLD = [
  "From memory: we settled that ReplayCursor (in src/journal/replay.ts) replays everything backwards, starting at the most recent checkpoint, and it stops at 512 MB after 3 retries, which Marta approved.",
  "Right, the replay side again: Marta approved ReplayCursor walking backwards from the newest checkpoint, src/journal/replay.ts holds it, 3 retries then it gives up, and nothing past 512 MB.",
];
const OTHER_RETOLD =
  "Also: ExportJob pushes Parquet files to s3://ledger-exports every night at 02:00, and Tomasz is its owner.";
const MENTION =
  "Writing it against the design we have: backwards replay via ReplayCursor in src/journal/replay.ts, a 512 MB cap, three retries, as Marta agreed.";

/** A Claude Code transcript of `turns` (uuids `<session>-<i>`), a minute apart. */
function claudeTranscript(session: string, turns: { type: "user" | "assistant"; content: unknown }[]) {
  return turns
    .map((turn, i) =>
      JSON.stringify({
        type: turn.type,
        uuid: `${session.slice(0, 24)}${String(i).padStart(12, "0")}`,
        parentUuid: i === 0 ? null : `${session.slice(0, 24)}${String(i - 1).padStart(12, "0")}`,
        sessionId: session,
        cwd: "/home/dev/ledger",
        timestamp: new Date(Date.parse("2026-10-01T10:00:00Z") + i * 60_000).toISOString(),
        message: { role: turn.type, content: turn.content },
      }),
    )
    .join("\n");
}

const turnOf = (session: string, i: number) => `${session.slice(0, 24)}${String(i).padStart(12, "0")}`;

/** funes's agent-format hit for turn `i` of `session` (format/agent-format.ts). */
const hitOf = (session: string, i: number, text: string) =>
  `[2026-10-01T10:01:00.000Z] claude_code -home-dev-ledger/${session.slice(0, 8)} text  score=0.733\n  → get ${session} ${turnOf(session, i)}\n${text}\n---\n`;

/** A home holding the decision, the other decision, and the session that recalls and retells them. */
async function retellingHome(name: string): Promise<CliEnv> {
  const e = userEnv(name);
  const dir = join(e.home, ".claude", "projects", "-home-dev-ledger");
  mkdirSync(dir, { recursive: true });
  const said = (type: "user" | "assistant", text: string) => ({
    type,
    content: type === "user" ? text : [{ type: "text", text }],
  });
  writeFileSync(
    join(dir, `${DEC}.jsonl`),
    claudeTranscript(DEC, [
      said("user", "how should journal replay work after a crash?"),
      said("assistant", DECISION),
    ]),
  );
  writeFileSync(
    join(dir, `${EXP}.jsonl`),
    claudeTranscript(EXP, [said("user", "who runs the billing export?"), said("assistant", EXPORTS)]),
  );
  const recall = (n: number, query: string, answers: string[]) => [
    said("user", query),
    {
      type: "assistant" as const,
      content: [{ type: "tool_use", id: `toolu_${n}`, name: "mcp__funes__recall", input: { query } }],
    },
    {
      type: "user" as const,
      content: [
        {
          type: "tool_result",
          tool_use_id: `toolu_${n}`,
          content: hitOf(DEC, 1, DECISION) + hitOf(EXP, 1, EXPORTS),
        },
      ],
    },
    ...answers.map((a) => said("assistant", a)),
  ];
  writeFileSync(
    join(dir, `${REC}.jsonl`),
    claudeTranscript(REC, [
      ...recall(1, "what did we settle on for replay and the exports?", [RETOLD[0] as string, OTHER_RETOLD]),
      ...recall(2, "remind me how replay ends", [RETOLD[1] as string]),
      said("user", "ok, now write the crash recovery test"),
      said("assistant", MENTION),
    ]),
  );
  const r = await runFunes(["index", "--yes"], e);
  expect(r.code, r.stderr).toBe(0);
  return e;
}

describe("funes forget takes restatements, and lists mentions (issue 42)", () => {
  it("forget --session of a decision takes the agent's retellings of it, lists the later mention, keeps the other decision's", async () => {
    const a = await retellingHome("retold");
    const memoryText = () =>
      filesUnder(join(a.funesHome, "memory"))
        .map((f) => readFileSync(f))
        .reduce((all, b) => Buffer.concat([all, b]), Buffer.alloc(0));

    const preview = await runFunes(["forget", "--session", DEC], a);
    expect(preview.code).toBe(2);
    expect(preview.stdout).toMatch(
      /to forget from the local memory: \d+ chunk\(s\) in 2 session\(s\), \d+ of them copies/,
    );
    expect(preview.stdout).toContain(
      "mentions: 1 chunk(s) in 1 session(s) carry what is forgotten (its rare words, numbers and names) with no recall tying them to it; they stay — add --with-mentions to take them too",
    );
    expect(preview.stdout).toContain(`    session ${REC}: 1 chunk(s), 1 turn(s)`);

    const r = await runFunes(["forget", "--session", DEC, "--yes", "--json"], a);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    // The decision (2 rows), both recalls' outputs, both retellings.
    expect(s.preview.copies).toBe(4);
    expect(s.forgotten).toBe(6);
    expect(s.preview.mentions).toMatchObject({ chunks: 1, taken: false });
    const left = memoryText();
    for (const gone of [DECISION, ...RETOLD]) expect(holds(left, gone)).toBe(false);
    // The other decision and its retelling stay, and so does the mention (it was not asked for).
    for (const kept of [EXPORTS, OTHER_RETOLD, MENTION]) expect(holds(left, kept)).toBe(true);
  });

  it("--with-mentions takes the mention too", async () => {
    const a = await retellingHome("retold-mentions");
    const r = await runFunes(["forget", "--session", DEC, "--with-mentions", "--yes", "--json"], a);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.forgotten).toBe(7);
    expect(s.preview.mentions).toMatchObject({ chunks: 1, taken: true });
    const left = filesUnder(join(a.funesHome, "memory")).map((f) => readFileSync(f));
    expect(left.some((b) => holds(b, MENTION))).toBe(false);
    expect(left.some((b) => holds(b, OTHER_RETOLD))).toBe(true);
  });

  it("on a Hub memory the same: the retellings leave the head, the mention only with --with-mentions", async () => {
    const a = await retellingHome("retold-hub");
    const hubTexts = async (repo: string) =>
      (await commitRows(hub.repos.get(repo)?.files ?? new Map(), t.dir, ["text"])).map((row) =>
        String(row.text),
      );
    for (const repo of ["acme/retold", "acme/retold-all"])
      expect((await runFunes(["push", repo, "--create"], a)).code).toBe(0);

    const r = await runFunes(["forget", "--session", DEC, "--memory", "acme/retold", "--yes", "--json"], a);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      forgotten: 6,
      preview: { copies: 4, mentions: { chunks: 1, taken: false } },
    });
    const texts = await hubTexts("acme/retold");
    for (const gone of [DECISION, ...RETOLD]) expect(texts.some((x) => x.includes(gone))).toBe(false);
    for (const kept of [OTHER_RETOLD, MENTION]) expect(texts.some((x) => x.includes(kept))).toBe(true);

    const all = await runFunes(
      ["forget", "--session", DEC, "--with-mentions", "--memory", "acme/retold-all", "--yes", "--json"],
      a,
    );
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ forgotten: 7, preview: { mentions: { taken: true } } });
    const rest = await hubTexts("acme/retold-all");
    expect(rest.some((x) => x.includes(MENTION))).toBe(false);
    expect(rest.some((x) => x.includes(OTHER_RETOLD))).toBe(true);
  });
});
