/**
 * A one-line progress bar on stderr for terminals; silent elsewhere.
 */

/** Draws and clears a progress line. */
export class ProgressLine {
  private shown = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly enabled: boolean,
  ) {}

  /** Redraws the bar: `[####----] done/total label` (without the counts when the label says them). */
  update(done: number, total: number, label: string, counts = true): void {
    if (!this.enabled || total === 0) return;
    const width = 24;
    const filled = Math.round((Math.min(done, total) / total) * width);
    const cols = this.out.columns || 100;
    const head = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${counts ? `${done}/${total} ` : ""}`;
    const room = Math.max(0, cols - head.length - 1);
    this.out.write(`\r\x1b[2K${head}${Array.from(label).slice(0, room).join("")}`);
    this.shown = true;
  }

  /** Removes the bar so the next line starts clean. */
  clear(): void {
    if (this.shown) this.out.write("\r\x1b[2K");
    this.shown = false;
  }
}
