/**
 * Checking a table's manifests before Lance opens a copy someone else wrote. A Lance manifest can send the
 * reader outside the table folder: `base_paths` (a shallow clone's source, or `s3://…`, read with the
 * reader's own cloud credentials), and `base_id` on data, deletion and index files pointing at them; data
 * and external row-id files carry paths of their own. Every manifest in the folder is decoded
 * (protobuf, lance table.proto) and refused unless everything it names lies inside the folder: no base
 * paths, no `base_id`, and only plain relative file names.
 *
 * Manifest file layout (lance 8): `… | u32 length + Manifest | u64 manifest position | u16 major |
 * u16 minor | "LANC"`; the index section sits at the position the manifest's `index_section` gives, also
 * length-prefixed.
 */
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PbBudget, type PbField, PbLimitError, pbDecode } from "../protobuf/index.js";

/**
 * A manifest names something outside its table folder or cannot be decoded (`outside`), its table lacks
 * columns funes reads (`columns`), or it is larger, or says or holds more, than funes writes (`oversize`).
 */
export class UnsafeManifestError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly kind: "outside" | "columns" | "oversize" = "outside",
  ) {
    super(`${file} ${reason}`);
  }
}

/**
 * Rows a manifest may say its data files hold: a few thousand, plus one per {@link MIN_BYTES_PER_ROW} bytes
 * of them on disk (a row's id alone, 16 random hex digits, takes that much compressed; a published row
 * also carries a 1,536-byte vector). A manifest claiming more rows than its files could hold is refused
 * before Lance believes it.
 */
const MIN_ROWS = 4096;
const MIN_BYTES_PER_ROW = 8;

/**
 * The most bytes a manifest file may hold. Measured on funes's own schema (17 columns, a text index): a
 * manifest grows by ~112 bytes a fragment (113 KB at 1,000 fragments), and a published memory gains one
 * fragment a push, never compacted; 16 MiB is ~150,000 pushes, fifteen times the 10,000 files a Hub folder
 * should hold, and a 256th of the download cap. Checked against the listing before a manifest is fetched.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/**
 * Fields the messages of one manifest file may hold together: ~12 a fragment (its data file included), so
 * 2 M is what 16 MiB of real fragments hold; a padded manifest's millions of two-byte fields stop here.
 */
export const MAX_MANIFEST_FIELDS = 2_000_000;
/** Fields a top message (the manifest, the index section) may hold: one a fragment or index, and a few. */
const MAX_TOP_FIELDS = 200_000;
/** Fields a nested message (a fragment, a data file, a column, an index) may hold. */
const MAX_NESTED_FIELDS = 4096;
/** Fields of numbers table.proto does not define, per message: a newer Lance adds a few, padding millions. */
const MAX_UNKNOWN_FIELDS = 256;
/** How deep the check reads: manifest → fragment → data file (index section → index → file). */
export const MAX_DEPTH = 2;

/** The field numbers lance's table.proto defines, per message the check reads. */
export const KNOWN = {
  manifest: new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]),
  fragment: new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  dataFile: new Set([1, 2, 3, 4, 5, 6, 7]),
  deletionFile: new Set([1, 2, 3, 4, 7]),
  externalFile: new Set([1, 2, 3]),
  basePath: new Set([1, 2, 3, 4]),
  indexSection: new Set([1]),
  index: new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  indexFile: new Set([1, 2]),
} as const;

type Field = PbField;

/**
 * Decodes the messages of one manifest file under its limits: `known` (a message of table.proto) or, for a
 * column (lance.file.Field, of which only the name is read), no known set.
 */
export function decoder(budget: PbBudget) {
  return (bytes: Uint8Array, depth: number, known?: ReadonlySet<number>): Field[] =>
    pbDecode(bytes, {
      maxFields: depth === 0 ? MAX_TOP_FIELDS : MAX_NESTED_FIELDS,
      ...(known === undefined ? {} : { known, maxUnknown: MAX_UNKNOWN_FIELDS }),
      budget,
      depth,
    });
}

const text = (f: Field) => Buffer.from(f.bytes).toString("utf8");
const sub = (fields: Field[], no: number) => fields.filter((f) => f.no === no && f.wire === 2);
const has = (fields: Field[], no: number) => fields.some((f) => f.no === no);

/**
 * Names Windows reads as a device whatever their extension (`NUL.lance`, `COM1.x`), any letter case (the
 * same rule as remote/validate.ts's for tree listings).
 */
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$/i;

/**
 * A file name Lance writes: plain characters, no separators, not `.` or `..`, no Windows device name, not
 * ending in `.` (which Windows drops).
 */
function plainName(s: string): boolean {
  return /^[A-Za-z0-9_.-]{1,200}$/.test(s) && !/^\.+$/.test(s) && !WINDOWS_DEVICE.test(s) && !s.endsWith(".");
}

/** A relative path of plain names (external row-id files, index files). */
function plainPath(s: string): boolean {
  const segs = s.split("/");
  return segs.length <= 8 && segs.every(plainName);
}

/** The length-prefixed message at `pos` of a manifest file. */
export function messageAt(buf: Buffer, pos: number): Uint8Array {
  if (pos + 4 > buf.length) throw new Error("section past the end");
  const len = buf.readUInt32LE(pos);
  if (pos + 4 + len > buf.length) throw new Error("section past the end");
  return buf.subarray(pos + 4, pos + 4 + len);
}

/** What is wrong with a manifest. */
export interface Problem {
  kind: "outside" | "columns" | "oversize";
  reason: string;
}

const outside = (reason: string): Problem => ({ kind: "outside", reason });

/**
 * Why a manifest's content names something outside the table or lacks a `required` column (its schema's
 * fields, lance.file.Field names), or null when neither.
 */
function manifestProblem(
  buf: Buffer,
  required: readonly string[],
  dataBytes: (name: string) => number,
): Problem | null {
  if (buf.length < 16 || buf.subarray(buf.length - 4).toString("latin1") !== "LANC")
    return outside("is not a Lance manifest");
  const decode = decoder(new PbBudget(MAX_MANIFEST_FIELDS, MAX_DEPTH));
  const pos = Number(buf.readBigUInt64LE(buf.length - 16));
  const manifest = decode(messageAt(buf, pos), 0, KNOWN.manifest);
  for (const base of sub(manifest, 18)) {
    const path = sub(decode(base.bytes, 1, KNOWN.basePath), 4)[0];
    return outside(
      `names a base path outside the memory (${JSON.stringify(path === undefined ? "" : text(path))})`,
    );
  }
  let rows = 0;
  let bytes = 0;
  for (const frag of sub(manifest, 2)) {
    const f = decode(frag.bytes, 1, KNOWN.fragment);
    for (const n of f) if (n.no === 4 && n.wire === 0) rows += n.num;
    for (const file of sub(f, 2)) {
      const df = decode(file.bytes, 2, KNOWN.dataFile);
      const path = sub(df, 1)[0];
      const name = path === undefined ? "" : text(path);
      if (!plainName(name)) return outside(`names a data file outside the memory (${JSON.stringify(name)})`);
      if (has(df, 7)) return outside(`reads data file ${JSON.stringify(name)} from another base path`);
      bytes += dataBytes(name);
    }
    for (const del of sub(f, 3))
      if (has(decode(del.bytes, 2, KNOWN.deletionFile), 7))
        return outside("reads a deletion file from another base path");
    for (const no of [6, 8, 10])
      for (const ext of sub(f, no)) {
        const path = sub(decode(ext.bytes, 2, KNOWN.externalFile), 1)[0];
        const name = path === undefined ? "" : text(path);
        if (!plainPath(name))
          return outside(`names a row-id file outside the memory (${JSON.stringify(name)})`);
      }
  }
  if (rows > MIN_ROWS + bytes / MIN_BYTES_PER_ROW)
    return {
      kind: "oversize",
      reason: `says its data files hold ${rows} rows in ${bytes} bytes, far more rows than funes writes in that much`,
    };
  const txn = sub(manifest, 12)[0];
  if (txn !== undefined && txn.bytes.length > 0 && !plainName(text(txn)))
    return outside(`names a transaction file outside the memory (${JSON.stringify(text(txn))})`);
  const indexSection = manifest.find((f) => f.no === 6 && f.wire === 0);
  if (indexSection !== undefined)
    for (const idx of sub(decode(messageAt(buf, indexSection.num), 0, KNOWN.indexSection), 1)) {
      const m = decode(idx.bytes, 1, KNOWN.index);
      if (has(m, 9)) return outside("reads an index from another base path");
      for (const file of sub(m, 10)) {
        const path = sub(decode(file.bytes, 2, KNOWN.indexFile), 1)[0];
        const name = path === undefined ? "" : text(path);
        if (!plainPath(name))
          return outside(`names an index file outside the memory (${JSON.stringify(name)})`);
      }
    }
  const columns = new Set(sub(manifest, 1).flatMap((f) => sub(decode(f.bytes, 1), 2).map(text)));
  const missing = required.filter((c) => !columns.has(c));
  if (missing.length > 0)
    return {
      kind: "columns",
      reason: `has no ${missing.map((c) => JSON.stringify(c)).join(", ")} column${missing.length === 1 ? "" : "s"}: it is not the table of a funes memory`,
    };
  return null;
}

/**
 * Why a manifest of `size` bytes is refused unread (larger than {@link MAX_MANIFEST_BYTES}), or null: for
 * a listing's sizes before anything is fetched, and for the files on disk before they are read.
 */
export function manifestTooLarge(size: number): Problem | null {
  if (size <= MAX_MANIFEST_BYTES) return null;
  return {
    kind: "oversize",
    reason: `is ${(size / 1048576).toFixed(1)} MiB, far larger than funes writes a manifest (${MAX_MANIFEST_BYTES / 1048576} MiB at most)`,
  };
}

/** A file name the check takes for a manifest (see {@link manifestFiles}). */
export const isManifestName = (name: string): boolean => name.includes(".manifest");

/**
 * Every manifest-like file under `tableDir` (relative paths): `_versions/*.manifest` as Lance writes them,
 * and any other file whose name says manifest (`_latest.manifest` of old tables, detached or branch
 * versions under `tree/`, a copy beside one), so no manifest a Lance version might open goes unchecked.
 */
function manifestFiles(tableDir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(tableDir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (depth < 16) walk(path, depth + 1);
      } else if (isManifestName(e.name)) out.push(path);
    }
  };
  walk("", 0);
  return out.sort();
}

/**
 * Checks every manifest of the table folder `tableDir` (a `chunks.lance`; see {@link manifestFiles}); throws
 * UnsafeManifestError naming the first one that points outside it, lacks one of the `required` columns (a
 * table funes would query for columns it does not have), claims more rows than its data files could hold
 * (`oversize`), is larger or holds more fields than a Lance manifest does (`oversize`: {@link
 * MAX_MANIFEST_BYTES}, then field counts read under limits, so a padded manifest costs neither memory nor
 * time), or cannot be decoded. Returns how many were checked.
 */
export function checkManifests(tableDir: string, required: readonly string[] = []): number {
  const names = manifestFiles(tableDir);
  const sizes = new Map<string, number>();
  const dataBytes = (name: string) => {
    let n = sizes.get(name);
    if (n === undefined) {
      try {
        n = statSync(join(tableDir, "data", name)).size;
      } catch {
        n = 0;
      }
      sizes.set(name, n);
    }
    return n;
  };
  for (const rel of names) {
    let problem: Problem | null;
    try {
      problem = manifestTooLarge(statSync(join(tableDir, rel)).size);
      problem ??= manifestProblem(readFileSync(join(tableDir, rel)), required, dataBytes);
    } catch (err) {
      problem =
        err instanceof PbLimitError
          ? { kind: "oversize", reason: `${err.message}, far more than a Lance manifest holds` }
          : outside(`cannot be decoded (${err instanceof Error ? err.message : String(err)})`);
    }
    if (problem !== null) throw new UnsafeManifestError(rel, problem.reason, problem.kind);
  }
  return names.length;
}
