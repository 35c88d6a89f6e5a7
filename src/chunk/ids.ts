/**
 * Chunk ids. Must equal the reference's: the first 16 hex digits of
 * sha1("<session_id>:<turn_uuid>:<block_idx>:<split_idx>"), so a memory's ids are the same whichever
 * tool wrote it, and indexing and publishing can work by set difference.
 */
import { createHash } from "node:crypto";

/** The id of one chunk, from its coordinates only. */
export function chunkId(sessionId: string, turnUuid: string, blockIdx: number, splitIdx: number): string {
  return createHash("sha1")
    .update(`${sessionId}:${turnUuid}:${blockIdx}:${splitIdx}`, "utf8")
    .digest("hex")
    .slice(0, 16);
}
