/**
 * Code comments cite only what is in the repository: no comment in src/, test/, bench/ or scripts/ names a
 * document outside it (the specs and notes beside the checkout, an absolute /work path), and every
 * `docs/<page>.md` a comment names exists, with the heading its `#anchor` names. A fact a comment relies on
 * is written into docs/ and cited there (ARCHITECTURE.md says which page holds what).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { type CodeComment, scriptComments, shellComments } from "./helpers/code-comments.js";
import { ROOT } from "./helpers/fixtures.js";

const FOLDERS = ["src", "test", "bench", "scripts"];
const SCRIPT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);

/** Paths outside the repository a comment must not cite, each with what it is. */
const OUTSIDE: [RegExp, string][] = [
  [/\.\.\/shared\b/, "the shared folder beside the checkout"],
  [/\bshared\/(?:spec|DESIGN|STYLE)\b/, "a spec or design note beside the checkout"],
  [/(?<![\w.~-])\/work\//, "an absolute /work path"],
];

/** A docs page named in a comment, with its anchor if any. */
const DOCS_LINK = /(?<![\w./-])docs\/([\w.-]+\.md)(?:#([\w-]+))?/g;

/** Every source file under the folders, fixtures (transcripts, models) aside. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" || e.name === "node_modules" ? [] : sourceFiles(p);
    return SCRIPT.has(extname(e.name)) || e.name.endsWith(".sh") ? [p] : [];
  });
}

function commentsOf(path: string): CodeComment[] {
  const text = readFileSync(path, "utf8");
  return path.endsWith(".sh") ? shellComments(text) : scriptComments(text);
}

/** The anchors of a Markdown page's headings, as GitHub makes them (fenced code blocks aside). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const slug = (m[1] as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with the comments of each file (its path from the root): `file:line: why`. */
function citationProblems(files: { file: string; comments: CodeComment[] }[]): string[] {
  const problems: string[] = [];
  const anchorsOf = new Map<string, Set<string> | null>();
  for (const { file, comments } of files)
    for (const c of comments) {
      for (const [re, what] of OUTSIDE) {
        const m = re.exec(c.text);
        if (m !== null) problems.push(`${file}:${c.line}: cites ${what}: ${m[0]}`);
      }
      for (const m of c.text.matchAll(DOCS_LINK)) {
        const page = m[1] as string;
        if (!anchorsOf.has(page)) {
          const p = join(ROOT, "docs", page);
          anchorsOf.set(page, existsSync(p) ? headingAnchors(readFileSync(p, "utf8")) : null);
        }
        const anchors = anchorsOf.get(page) ?? null;
        if (anchors === null) problems.push(`${file}:${c.line}: docs/${page} does not exist`);
        else if (m[2] !== undefined && !anchors.has(m[2]))
          problems.push(`${file}:${c.line}: docs/${page} has no heading #${m[2]}`);
      }
    }
  return problems;
}

describe("comments cite the repository", () => {
  const files = FOLDERS.flatMap((f) => sourceFiles(join(ROOT, f))).map((p) => ({
    file: relative(ROOT, p),
    comments: commentsOf(p),
  }));

  it("no comment names a path outside it, and every docs page and heading a comment cites exists", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(citationProblems(files)).toEqual([]);
  });

  it("comments do cite docs pages with anchors (the check above has something to check)", () => {
    const cited = files.flatMap((f) =>
      f.comments.flatMap((c) => [...c.text.matchAll(DOCS_LINK)].filter((m) => m[2] !== undefined)),
    );
    expect(cited.length).toBeGreaterThan(20);
  });
});

describe("finding comments", () => {
  it("finds line and block comments, never text in strings, templates or regular expressions", () => {
    const src = [
      'const a = "// shared/spec/core.md is a string"; // one',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's source, kept literally
      "const b = `x ${'/* not a comment */'} ${`nested ${1 /* two */}`} // still the template`;",
      "const re = /\\/\\/ not a comment [/]/g; const half = 4 / 2; // three",
      "if (ok) return /* four */ /a\\/b/.test(s);",
      "/**",
      " * five",
      " */",
      "const c = { k: 1 } / 2; const t = `}` + '`'; // six",
    ].join("\n");
    expect(scriptComments(src)).toEqual([
      { line: 1, text: "// one" },
      { line: 2, text: "/* two */" },
      { line: 3, text: "// three" },
      { line: 4, text: "/* four */" },
      { line: 5, text: "/**\n * five\n */" },
      { line: 8, text: "// six" },
    ]);
  });

  it("finds shell comments, never a # inside quotes or a word", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, kept literally
    const src = ["# one", "echo \"a # b\" 'c # d' ${#x} $# # two", "x=1#notone"].join("\n");
    expect(shellComments(src)).toEqual([
      { line: 1, text: "# one" },
      { line: 2, text: "# two" },
    ]);
  });

  it("flags paths outside the repository, missing pages and missing headings, and passes good citations", () => {
    const src = [
      "// see ../shared/spec/core.md §2 and /work/shared/DESIGN.md",
      "// see docs/memory-format.md#chunking and docs/nope.md and docs/memory-format.md#nope",
      'const s = "/work/app shared/spec docs/nope.md"; // a string is not a comment',
      "// the cwd /home/dev/work/app and the Hub path hf://datasets/acme/team/shared/mem are fine",
    ].join("\n");
    expect(citationProblems([{ file: "src/x.ts", comments: scriptComments(src) }])).toEqual([
      "src/x.ts:1: cites the shared folder beside the checkout: ../shared",
      "src/x.ts:1: cites a spec or design note beside the checkout: shared/spec",
      "src/x.ts:1: cites an absolute /work path: /work/",
      "src/x.ts:2: docs/nope.md does not exist",
      "src/x.ts:2: docs/memory-format.md has no heading #nope",
    ]);
  });

  it("makes GitHub's heading anchors", () => {
    const md =
      "# Top\n## `funes models [status|pull]`\n```\n# not a heading\n```\n## Top\n### The repo's facet, a/b\n";
    expect([...headingAnchors(md)]).toEqual([
      "top",
      "funes-models-statuspull",
      "top-1",
      "the-repos-facet-ab",
    ]);
  });
});
