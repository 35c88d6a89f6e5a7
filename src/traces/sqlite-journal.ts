/**
 * Rolling a hot rollback journal back into a private copy of its database, as SQLite does when it opens a
 * database whose writer died mid-transaction (the format is SQLite's "rollback journal", fileformat2.html
 * §4): the database file may hold pages of the transaction that never committed, and the journal holds
 * their content from before it. The reader's engine cannot tell the journal is hot (its file lock is a
 * folder beside the database, which it takes for another process's lock), so the copy is rolled back here
 * and the journal removed before the engine opens it.
 *
 * Journal: segments, each a header at a sector boundary — 8 magic bytes, the record count (0xFFFFFFFF:
 * as many as the file holds), the checksum nonce, the database's size in pages before the transaction, the
 * sector size, the page size — then records: page number (4 bytes), the page's old content, a checksum.
 * Playback stops at the first record whose checksum fails (it was not written in full); the first copy of
 * a page wins; the database is cut back to its size before the transaction. All integers big-endian.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";

const MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
const HEADER_BYTES = 28;
/** SQLite's lock byte sits at 1 GiB: the page holding it is never written, nor journaled. */
const PENDING_BYTE = 0x40000000;

function isPowerOfTwoIn(n: number, lo: number, hi: number): boolean {
  return n >= lo && n <= hi && (n & (n - 1)) === 0;
}

/** SQLite's journal checksum: the nonce plus every 200th byte of the page, from the end. */
function pageChecksum(nonce: number, page: Buffer): number {
  let sum = nonce;
  for (let i = page.length - 200; i > 0; i -= 200) sum = (sum + (page[i] ?? 0)) >>> 0;
  return sum;
}

/**
 * Plays the journal at `journalPath` back into the database file at `dbPath` (both private copies).
 * Returns the number of pages restored, or null when the journal is not hot (empty, or its header zeroed or
 * truncated by a commit): then the database is left as it is.
 */
export function rollBackJournal(dbPath: string, journalPath: string): number | null {
  const j = readFileSync(journalPath);
  if (j.length < HEADER_BYTES || !j.subarray(0, 8).equals(MAGIC)) return null;
  const fd = openSync(dbPath, "r+");
  try {
    const done = new Set<number>();
    let original = -1;
    let pageSize = 0;
    let header = 0;
    while (header + HEADER_BYTES <= j.length && j.subarray(header, header + 8).equals(MAGIC)) {
      let records = j.readUInt32BE(header + 8);
      const nonce = j.readUInt32BE(header + 12);
      const sector = j.readUInt32BE(header + 20);
      if (original < 0) {
        original = j.readUInt32BE(header + 16);
        pageSize = j.readUInt32BE(header + 24);
        if (!isPowerOfTwoIn(pageSize, 512, 65536) || !isPowerOfTwoIn(sector, 32, 65536)) return null;
        // The transaction's pages past the old end go: the database is cut back first.
        ftruncateSync(fd, original * pageSize);
      }
      if (!isPowerOfTwoIn(sector, 32, 65536)) break;
      const recordBytes = 4 + pageSize + 4;
      let at = header + sector;
      if (records === 0xffffffff) records = Math.floor((j.length - at) / recordBytes);
      const lockPage = Math.floor(PENDING_BYTE / pageSize) + 1;
      let torn = false;
      for (let r = 0; r < records; r++, at += recordBytes) {
        if (at + recordBytes > j.length) {
          torn = true;
          break;
        }
        const pgno = j.readUInt32BE(at);
        const page = j.subarray(at + 4, at + 4 + pageSize);
        if (
          pgno === 0 ||
          pgno === lockPage ||
          j.readUInt32BE(at + 4 + pageSize) !== pageChecksum(nonce, page)
        ) {
          torn = true;
          break;
        }
        if (pgno > original || done.has(pgno)) continue;
        done.add(pgno);
        writeSync(fd, page, 0, pageSize, (pgno - 1) * pageSize);
      }
      if (torn) break;
      // The next segment's header starts at the next sector boundary.
      header = Math.ceil(at / sector) * sector;
    }
    return done.size;
  } finally {
    closeSync(fd);
  }
}
