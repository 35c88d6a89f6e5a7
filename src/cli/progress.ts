/**
 * Progress on stderr for terminals: a one-line bar, and a line saying what a long step is doing with the
 * seconds it has taken. Each stays on one row (cut to the terminal's width), so a return and an erase of
 * that row redraws or removes it whole.
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
    const cols = this.out.columns || 80;
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

/**
 * What a long step is doing (`setting funes up in claude… 12 s`): on a terminal one row on stderr, its
 * seconds counted each second, removed before anything else is written; off a terminal the words once,
 * on their own line. Never the `funes:` prefix, which is for failures.
 */
export class ActivityLine {
  private label = "";
  private started = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Shows `label` as the step under way (replacing the one before). */
  start(label: string): void {
    this.clear();
    this.label = label;
    this.started = this.now();
    if (!this.tty) {
      this.out.write(`${label}\n`);
      return;
    }
    this.draw();
    this.timer = setInterval(() => this.draw(), 1000);
    this.timer.unref();
  }

  private draw(): void {
    const s = Math.floor((this.now() - this.started) / 1000);
    const text = s >= 1 ? `${this.label} ${s} s` : this.label;
    const cols = this.out.columns || 80;
    this.out.write(
      `\r\x1b[2K${Array.from(text)
        .slice(0, cols - 1)
        .join("")}`,
    );
  }

  /** Removes the line (before a question, a result or a failure is written). */
  clear(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.tty && this.label !== "") this.out.write("\r\x1b[2K");
    this.label = "";
  }
}
