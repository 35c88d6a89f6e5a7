/**
 * What a table's newest version is made of, read from its manifest (protobuf, lance table.proto): its
 * fragments (id, live rows, data file, deletion file), its indexes' folders and its transaction file. Lance
 * opens the newest manifest in `_versions/` and reads only what that manifest names, so these are the files
 * a reader needs (docs/publish-protocol.md, "What a reader downloads"): a Hub memory's view fetches only
 * them, and a compaction removes every other file of the table's own folders (older manifests,
 * transactions, data files no fragment uses any more, index generations a rebuild replaced).
 *
 * Paths Lance derives from a manifest (lance 8): a data file is `data/<path>`, a deletion file
 * `_deletions/<fragment id>-<read version>-<id>.<arrow|bin>` (by its type: arrow array 0, bitmap 1), an
 * index every file under `_indices/<uuid>/`, the transaction `_transactions/<name>`. A manifest naming
 * anything else (row-id sequences in files of their own, base paths, mixed version namings) is
 * {@link UnsupportedManifestError}: callers then keep every file, as before.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PbBudget, type PbField, pbText, pbUnsigned } from "../protobuf/index.js";
import { decoder, KNOWN, MAX_DEPTH, MAX_MANIFEST_FIELDS, messageAt } from "./manifest-check.js";
import { TABLE_NAME } from "./schema.js";

/** A manifest funes does not read files from (see the file header): keep everything. */
export class UnsupportedManifestError extends Error {}

/** One fragment of a version. */
export interface FragmentEntry {
  id: bigint;
  /** Rows it holds, less those its deletion file deletes. */
  rows: number;
  /** Paths relative to the table folder. */
  dataFiles: string[];
  deletionFile: string | null;
}

/** What one manifest names. */
export interface ManifestContents {
  fragments: FragmentEntry[];
  /** Index folders (`_indices/<uuid>`), relative to the table folder. */
  indexDirs: string[];
  /** `_transactions/<name>`, or null. */
  transaction: string | null;
}

const U64_MAX = (1n << 64n) - 1n;
const MANIFEST_NAME = /^(\d+)\.manifest$/;
/** The file Lance rewrites in place to point at the newest version; not part of any version. */
export const VERSION_HINT = "latest_version_hint.json";
/** The folders of a table Lance writes its files in. */
export const TABLE_FOLDERS = ["data", "_versions", "_transactions", "_indices", "_deletions"] as const;

/**
 * The newest of `names` (file names in `_versions/`), by Lance's naming: V2 names count down from u64::MAX
 * (`u64::MAX - version`, 20 digits), V1 names are the version itself. Null when there is none; an
 * UnsupportedManifestError when the folder mixes the two namings or holds a name of neither (a reader would
 * have to guess which one Lance opens).
 */
export function newestManifestName(names: readonly string[]): string | null {
  let best: { v: bigint; name: string } | null = null;
  let scheme: "v1" | "v2" | null = null;
  for (const name of names) {
    if (name === VERSION_HINT) continue;
    const m = MANIFEST_NAME.exec(name);
    if (m === null)
      throw new UnsupportedManifestError(`_versions/${name} is not named as Lance names a version`);
    const n = BigInt(m[1] as string);
    const here = n > 1n << 63n ? "v2" : "v1";
    if (scheme !== null && scheme !== here)
      throw new UnsupportedManifestError("_versions mixes Lance's two manifest namings");
    scheme = here;
    const v = here === "v2" ? U64_MAX - n : n;
    if (best === null || v > best.v) best = { v, name };
  }
  return best?.name ?? null;
}

const sub = (fields: PbField[], no: number) => fields.filter((f) => f.no === no && f.wire === 2);
const num = (fields: PbField[], no: number): bigint => {
  const f = fields.find((x) => x.no === no && x.wire === 0);
  return f === undefined ? 0n : pbUnsigned(f);
};

/** The uuid of an index (16 bytes) as Lance names its folder: 8-4-4-4-12 lower-case hex. */
function uuidName(bytes: Uint8Array): string {
  const h = Buffer.from(bytes).toString("hex");
  if (h.length !== 32) throw new UnsupportedManifestError("names an index by an id that is not a uuid");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A file name Lance writes (no separators, not `.`/`..`). */
const plain = (s: string) => /^[A-Za-z0-9_.-]{1,200}$/.test(s) && !/^\.+$/.test(s);

/**
 * What the manifest file `buf` names (decoded under the same limits as the manifest check). Throws
 * UnsupportedManifestError for what funes does not read files from, and the decoder's errors for a
 * damaged or oversized manifest.
 */
export function manifestContents(buf: Buffer): ManifestContents {
  if (buf.length < 16 || buf.subarray(buf.length - 4).toString("latin1") !== "LANC")
    throw new UnsupportedManifestError("is not a Lance manifest");
  const decode = decoder(new PbBudget(MAX_MANIFEST_FIELDS, MAX_DEPTH));
  const pos = Number(buf.readBigUInt64LE(buf.length - 16));
  const manifest = decode(messageAt(buf, pos), 0, KNOWN.manifest);
  if (sub(manifest, 18).length > 0) throw new UnsupportedManifestError("names base paths");
  const fragments: FragmentEntry[] = [];
  for (const frag of sub(manifest, 2)) {
    const f = decode(frag.bytes, 1, KNOWN.fragment);
    if ([6, 8, 10].some((no) => sub(f, no).length > 0))
      throw new UnsupportedManifestError("keeps row ids in files of their own");
    const id = num(f, 1);
    const dataFiles = sub(f, 2).map((file) => {
      const df = decode(file.bytes, 2, KNOWN.dataFile);
      const path = sub(df, 1)[0];
      const name = path === undefined ? "" : pbText(path);
      if (!plain(name) || df.some((x) => x.no === 7))
        throw new UnsupportedManifestError(`names a data file funes does not read (${JSON.stringify(name)})`);
      return `data/${name}`;
    });
    let deletionFile: string | null = null;
    let deleted = 0n;
    const del = sub(f, 3)[0];
    if (del !== undefined) {
      const d = decode(del.bytes, 2, KNOWN.deletionFile);
      if (d.some((x) => x.no === 7))
        throw new UnsupportedManifestError("reads a deletion file from elsewhere");
      const type = num(d, 1);
      if (type > 1n) throw new UnsupportedManifestError(`names a deletion file of an unknown type (${type})`);
      deletionFile = `_deletions/${id}-${num(d, 2)}-${num(d, 3)}.${type === 1n ? "bin" : "arrow"}`;
      deleted = num(d, 4);
    }
    const rows = num(f, 4) - deleted;
    fragments.push({ id, rows: Number(rows < 0n ? 0n : rows), dataFiles, deletionFile });
  }
  const indexDirs: string[] = [];
  const section = manifest.find((f) => f.no === 6 && f.wire === 0);
  if (section !== undefined)
    for (const idx of sub(decode(messageAt(buf, section.num), 0, KNOWN.indexSection), 1)) {
      const m = decode(idx.bytes, 1, KNOWN.index);
      if (m.some((x) => x.no === 9)) throw new UnsupportedManifestError("reads an index from elsewhere");
      const uuid = sub(m, 1)[0];
      const bytes = uuid === undefined ? undefined : sub(decode(uuid.bytes, 2), 1)[0]?.bytes;
      if (bytes === undefined) throw new UnsupportedManifestError("names an index without its uuid");
      indexDirs.push(`_indices/${uuidName(bytes)}`);
    }
  const txn = sub(manifest, 12)[0];
  const txnName = txn === undefined ? "" : pbText(txn);
  if (txnName !== "" && !plain(txnName))
    throw new UnsupportedManifestError(
      `names a transaction file funes does not read (${JSON.stringify(txnName)})`,
    );
  return { fragments, indexDirs, transaction: txnName === "" ? null : `_transactions/${txnName}` };
}

/** What a table's newest version needs: paths relative to the table folder. */
export interface VersionFiles {
  /** `_versions/<name>` of the newest manifest. */
  manifest: string;
  contents: ManifestContents;
  /** Whether `rel` (a path under the table folder) is one of the version's files. */
  has(rel: string): boolean;
}

/** The files the version in `manifest` (its `_versions/…` path and bytes) needs. */
export function versionFiles(manifest: string, buf: Buffer): VersionFiles {
  const contents = manifestContents(buf);
  const files = new Set<string>([manifest, ...contents.fragments.flatMap((f) => f.dataFiles)]);
  for (const f of contents.fragments) if (f.deletionFile !== null) files.add(f.deletionFile);
  if (contents.transaction !== null) files.add(contents.transaction);
  const dirs = contents.indexDirs.map((d) => `${d}/`);
  return {
    manifest,
    contents,
    has: (rel) => files.has(rel) || dirs.some((d) => rel.startsWith(d)),
  };
}

function filesUnder(dir: string, rel: string): string[] {
  const p = join(dir, rel);
  if (!existsSync(p)) return [];
  return readdirSync(p).flatMap((n) => {
    const r = `${rel}/${n}`;
    return statSync(join(dir, r)).isDirectory() ? filesUnder(dir, r) : [r];
  });
}

/**
 * The newest version of the memory table in `dir` (the folder holding `chunks.lance`) and its files, or null
 * when it has no manifest.
 */
export function newestVersionFiles(dir: string): VersionFiles | null {
  const table = join(dir, `${TABLE_NAME}.lance`);
  const folder = join(table, "_versions");
  const name = existsSync(folder) ? newestManifestName(readdirSync(folder)) : null;
  if (name === null) return null;
  return versionFiles(`_versions/${name}`, readFileSync(join(folder, name)));
}

/**
 * Files of the table in `dir` that its newest version does not need (paths relative to the table folder):
 * within Lance's own folders only, never the version hint. Empty when there is no manifest.
 */
export function filesBesidesNewest(dir: string): string[] {
  const v = newestVersionFiles(dir);
  if (v === null) return [];
  const table = join(dir, `${TABLE_NAME}.lance`);
  return TABLE_FOLDERS.flatMap((f) => filesUnder(table, f)).filter(
    (rel) => !v.has(rel) && !rel.endsWith(`/${VERSION_HINT}`),
  );
}
