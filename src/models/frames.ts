/**
 * Newline-delimited frames of the model server's protocol, read with a bound: each chunk is scanned once
 * (only the new bytes are searched for a newline, never what is already held), and a line longer than the
 * bound is refused as soon as it passes it, so a peer that never sends a newline costs at most the bound
 * in memory and linear time.
 */

/** A line passed the bound without ending. */
export class FrameTooLongError extends Error {}

/** Splits a byte stream into lines of at most `maxBytes` bytes (newline excluded). */
export class FrameReader {
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The lines this chunk completes, in order; throws FrameTooLongError once a line passes the bound. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      if (this.heldBytes + (end - start) > this.maxBytes) {
        this.held = [];
        this.heldBytes = 0;
        throw new FrameTooLongError(`a line passed ${this.maxBytes} bytes without ending`);
      }
      if (nl < 0) {
        if (end > start) {
          this.held.push(chunk.subarray(start));
          this.heldBytes += end - start;
        }
        return lines;
      }
      const part = chunk.subarray(start, nl);
      const line = this.held.length === 0 ? part : Buffer.concat([...this.held, part]);
      this.held = [];
      this.heldBytes = 0;
      lines.push(line.toString("utf8"));
      start = nl + 1;
    }
  }
}
