/**
 * The CLI on a real pseudo-terminal of a given size, and what a person would see on it: util-linux `script`
 * gives the pseudo-terminal (as `runFunesInTerminal` does; no install on a Linux CI machine), `stty` sizes
 * it, and a small terminal emulator replays the output (printable text with xterm's deferred wrap at the
 * right edge, return, newline, backspace, tab, erase in line; colours and other escape sequences taking no
 * room). It counts the rows the output takes and how many times the terminal itself had to wrap a line.
 */
import { spawn } from "node:child_process";
import { CLI, type CliEnv } from "./cli.js";

/** A terminal screen fed the bytes a program wrote to it. */
export class Screen {
  /** Every row written, scrolled-off ones first; the cursor is on the last. */
  readonly lines: string[][] = [[]];
  private row = 0;
  private col = 0;
  private pendingWrap = false;
  /** Times a line reached the right edge and went on on the next row (the terminal broke it). */
  wraps = 0;

  constructor(
    readonly cols: number,
    readonly rows: number,
  ) {}

  private line(): string[] {
    while (this.lines.length <= this.row) this.lines.push([]);
    return this.lines[this.row] as string[];
  }

  /** Replays `data`. */
  write(data: string): void {
    for (let i = 0; i < data.length; i++) {
      const c = data[i] as string;
      if (c === "\x1b") {
        const next = data[i + 1];
        if (next === "[") {
          let j = i + 2;
          while (j < data.length && !/[@-~]/.test(data[j] as string)) j++;
          this.csi(data.slice(i + 2, j), data[j] ?? "");
          i = j;
        } else if (next === "]") {
          // OSC: up to BEL or ST.
          let j = i + 2;
          while (j < data.length && data[j] !== "\x07" && !(data[j] === "\x1b" && data[j + 1] === "\\")) j++;
          i = data[j] === "\x07" ? j : j + 1;
        } else i += 1;
        continue;
      }
      if (c === "\r") {
        this.col = 0;
        this.pendingWrap = false;
      } else if (c === "\n") {
        this.row++;
        this.line();
        this.pendingWrap = false;
      } else if (c === "\b") {
        this.col = Math.max(0, this.col - 1);
        this.pendingWrap = false;
      } else if (c === "\t") this.col = Math.min(this.cols - 1, (Math.floor(this.col / 8) + 1) * 8);
      else if (c >= " " && c !== "\x7f") {
        // A surrogate pair is one character.
        const ch = /[\ud800-\udbff]/.test(c) ? `${c}${data[++i] ?? ""}` : c;
        if (this.pendingWrap) {
          this.row++;
          this.col = 0;
          this.wraps++;
          this.pendingWrap = false;
        }
        const l = this.line();
        while (l.length < this.col) l.push(" ");
        l[this.col] = ch;
        if (this.col === this.cols - 1) this.pendingWrap = true;
        else this.col++;
      }
    }
  }

  private csi(params: string, final: string): void {
    const n = Number(params.replace(/^\?/, "").split(";")[0] || "0");
    const l = this.line();
    if (final === "K") {
      if (n === 2) l.length = 0;
      else if (n === 0) l.length = Math.min(l.length, this.col);
      else for (let k = 0; k <= this.col && k < l.length; k++) l[k] = " ";
    } else if (final === "G") this.col = Math.max(0, Math.min(this.cols - 1, (n || 1) - 1));
    else if (final === "C") this.col = Math.min(this.cols - 1, this.col + (n || 1));
    else if (final === "D") this.col = Math.max(0, this.col - (n || 1));
    else if (final === "A") this.row = Math.max(0, this.row - (n || 1));
    if (final !== "m") this.pendingWrap = false;
  }

  /** The rows on the screen now (the last `rows`, up to the cursor's), right-trimmed. */
  visible(): string[] {
    const all = this.lines.slice(0, this.row + 1).map((l) => l.join("").trimEnd());
    return all.slice(Math.max(0, all.length - this.rows));
  }

  /**
   * Rows the output took, the cursor's row included when anything is on it (where the shell's prompt
   * goes next when it is empty).
   */
  rowsUsed(): number {
    return this.row + 1;
  }
}

/** What a run on the pseudo-terminal left. */
export interface PtyRun {
  code: number | null;
  /** The raw bytes the terminal received, as text. */
  raw: string;
  screen: Screen;
}

/**
 * Runs `funes …` on a `cols`×`rows` pseudo-terminal. `keys`: text to type, each once its `after` pattern
 * has shown in the output (in order). TERM is xterm-256color, NO_COLOR is set (as a test's env sets).
 */
export function runFunesInPty(
  args: string[],
  env: CliEnv,
  o: { cols: number; rows: number; keys?: { after: RegExp; type: string }[] },
): Promise<PtyRun> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = `stty cols ${o.cols} rows ${o.rows}; exec ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qefc", command, "/dev/null"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: env.home,
      FUNES_HOME: env.funesHome,
      NO_COLOR: "1",
      FUNES_THREADS: "1",
      FUNES_SERVER: "0",
      TERM: "xterm-256color",
      ...env.extra,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const screen = new Screen(o.cols, o.rows);
  const keys = [...(o.keys ?? [])];
  let raw = "";
  let seen = 0;
  const feed = (d: Buffer) => {
    const s = d.toString("utf8");
    raw += s;
    screen.write(s);
    const next = keys[0];
    if (next?.after.test(raw.slice(seen))) {
      seen = raw.length;
      keys.shift();
      child.stdin?.write(next.type);
    }
  };
  child.stdout?.on("data", feed);
  child.stderr?.on("data", feed);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      child.stdin?.end();
      resolve({ code, raw, screen });
    }),
  );
}
