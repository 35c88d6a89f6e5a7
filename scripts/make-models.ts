/**
 * Generates model folders and places them in a Hugging Face cache layout, so tests and benchmarks load
 * models through the exact production path (cache resolution included) on machines that cannot download.
 *
 *   npx tsx scripts/make-models.ts test  <hub-cache-dir>   tiny bag-of-words embedder + reranker (tests)
 *   npx tsx scripts/make-models.ts bench <hub-cache-dir>   random-weight models with the real shapes
 *
 * Files go to `models--<org>--<name>/blobs/<sha256>` with `snapshots/<pinned revision>/<path>` symlinks,
 * as `huggingface_hub` and `@huggingface/hub` lay them out.
 */
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { EMBEDDER_SPEC, type ModelSpec, RERANKER_SPECS } from "../src/models/index.js";
import {
  BGE_RERANKER_BASE,
  BGE_SMALL,
  MINILM_L6,
  writeBertEmbedder,
  writeBertReranker,
  writeTinyEmbedder,
  writeTinyReranker,
} from "./model-gen/models.js";
import { buildVocab } from "./model-gen/tokenizer.js";

const COMMIT_RE = /^[0-9a-f]{40}$/;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The tiny test vocabulary: the words above, then the fixture transcripts' 4,000 most frequent words. */
export function testVocab(): string[] {
  return buildVocab([...TEST_WORDS, ...fixtureWords().slice(0, 4000)]);
}

/** Words of the tiny test vocabulary; anything else tokenizes into single letters. */
const TEST_WORDS = `the a an and or of to in on for with is was are be it this that we you i not no yes
lance lancedb arrow index indexes indexing fts text search vector vectors embed embedding embeddings model
models reranker rerank recall memory memories session sessions turn turns chunk chunks agent agents claude
codex pi hermes hub dataset push publish commit cache token secret secrets key keys deadlock thread threads
cpu core cores build fix bug error errors test tests failing passed parser parse json jsonl file files
directory folder path config release version pin pinned upgrade node npm typescript rust python git
remote branch merge database sqlite query queries latency fast slow budget time timeout portfolio website
design designer earth globe texture night city lights shader render image images python javascript why
how what when where decision decided because chose choose rejected plan parquet hyparquet reader secretlint
flock lock writer manifest manifests symlink symlinked optimize rewrite publishing compaction archived
half life recency minilm int8 jitter retry refresh overlap code points hex sha1 digits variables tokens
palette flamingo migration approved guard remote base64 uri elided backfill sixty seconds
interoperate bounded unbounded cross encoder stdout debug protocol hugging face snapshots`.split(/\s+/);

/** Writes a model folder built by `make` into `hubCache` under `spec`'s repo and pinned revision. */
export function placeInCache(hubCache: string, spec: ModelSpec, make: (dir: string) => void): string {
  const tmp = mkdtempSync(join(tmpdir(), "funes-model-"));
  try {
    make(tmp);
    const repoDir = join(hubCache, `models--${spec.repo.replace("/", "--")}`);
    // A branch revision gets a made-up commit, recorded in refs/ as a pull would record the real one.
    const commit = COMMIT_RE.test(spec.revision)
      ? spec.revision
      : createHash("sha1").update(`generated:${spec.repo}`).digest("hex");
    const snap = join(repoDir, "snapshots", commit);
    rmSync(snap, { recursive: true, force: true });
    for (const rel of walk(tmp)) {
      const bytes = readFileSync(join(tmp, rel));
      const blob = join(repoDir, "blobs", createHash("sha256").update(bytes).digest("hex"));
      mkdirSync(dirname(blob), { recursive: true });
      writeFileSync(blob, bytes);
      const link = join(snap, rel);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(relative(dirname(link), blob), link);
    }
    mkdirSync(join(repoDir, "refs"), { recursive: true });
    writeFileSync(join(repoDir, "refs", COMMIT_RE.test(spec.revision) ? "main" : spec.revision), commit);
    return snap;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p, base) : [relative(base, p)];
  });
}

/** The tiny test models, in the cache at the production specs' repos and revisions. */
export function writeTestModels(hubCache: string): void {
  const vocab = testVocab();
  placeInCache(hubCache, EMBEDDER_SPEC, (d) => writeTinyEmbedder(d, vocab));
  for (const spec of Object.values(RERANKER_SPECS))
    placeInCache(hubCache, spec, (d) => {
      writeTinyReranker(d, vocab);
      // The tiny graph serves as both precisions a spec may ask for.
      writeFileSync(join(d, "onnx", "model_quantized.onnx"), readFileSync(join(d, "onnx", "model.onnx")));
    });
}

/** Words of the fixture transcripts, most frequent first (a realistic WordPiece vocabulary). */
function fixtureWords(): string[] {
  const counts = new Map<string, number>();
  const dir = join(ROOT, "test", "fixtures", "traces");
  for (const rel of walk(dir).filter((f) => f.endsWith(".jsonl")))
    for (const w of readFileSync(join(dir, rel), "utf8")
      .toLowerCase()
      .match(/[a-z]{2,20}/g) ?? [])
      counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
}

/** Random-weight models with the real shapes: bge-small (fp32 + int8), MiniLM-L6 reranker (fp32 + int8). */
export function writeBenchModels(hubCache: string, withRerankerBase = false): void {
  const vocab = buildVocab(fixtureWords(), BGE_SMALL.vocab);
  placeInCache(hubCache, EMBEDDER_SPEC, (d) => writeBertEmbedder(d, BGE_SMALL, vocab, ["fp32", "int8"]));
  const minilm = RERANKER_SPECS["ms-marco-MiniLM-L-6-v2"];
  placeInCache(hubCache, minilm, (d) => writeBertReranker(d, MINILM_L6, vocab, ["fp32", "int8"]));
  if (withRerankerBase) {
    const base = RERANKER_SPECS["bge-reranker-base"];
    const big = buildVocab(fixtureWords(), BGE_RERANKER_BASE.vocab);
    placeInCache(hubCache, base, (d) => writeBertReranker(d, BGE_RERANKER_BASE, big, ["fp32", "int8"]));
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [kind, out] = process.argv.slice(2);
  if ((kind !== "test" && kind !== "bench") || out === undefined) {
    process.stderr.write("usage: make-models.ts test|bench <hub-cache-dir>\n");
    process.exit(2);
  }
  if (kind === "test") writeTestModels(out);
  else writeBenchModels(out, process.env.BENCH_RERANKER_BASE === "1");
  process.stdout.write(`models written under ${out}\n`);
}
