/**
 * A hostile Lance manifest: a real one with `count` fields of a number table.proto does not define appended
 * to its Manifest message (three bytes each, so 25 M of them make the 75 MB manifest of issue 40). Lance's
 * own reader skips unknown fields; a reader that keeps every field it meets holds millions of objects.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Field 1000, wire type 0 (varint), value 1: three bytes. */
const UNKNOWN_FIELD = Buffer.from([0xc0, 0x3e, 0x01]);

/**
 * `manifest` (a whole `_versions/*.manifest` file) with `count` unknown fields appended to its Manifest
 * message; what lies before the message (the index section) keeps its place.
 */
export function padManifest(manifest: Buffer, count: number): Buffer {
  const pos = Number(manifest.readBigUInt64LE(manifest.length - 16));
  const len = manifest.readUInt32LE(pos);
  const message = manifest.subarray(pos + 4, pos + 4 + len);
  const padded = Buffer.alloc(count * UNKNOWN_FIELD.length);
  for (let i = 0; i < count; i++) UNKNOWN_FIELD.copy(padded, i * UNKNOWN_FIELD.length);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(len + padded.length);
  // The footer: the message's position, then the version and magic as they were.
  const footer = Buffer.from(manifest.subarray(manifest.length - 16));
  return Buffer.concat([manifest.subarray(0, pos), head, message, padded, footer]);
}

/** Pads the newest manifest of the table folder `tableDir` in place; returns its bytes. */
export function padNewestManifest(tableDir: string, count: number): number {
  const versions = join(tableDir, "_versions");
  // V2 names count down: the newest version has the smallest name.
  const newest = readdirSync(versions)
    .filter((n) => n.endsWith(".manifest"))
    .sort()[0] as string;
  const bytes = padManifest(readFileSync(join(versions, newest)), count);
  writeFileSync(join(versions, newest), bytes);
  return bytes.length;
}
