/**
 * Index-time redaction of the columns a row is stored with besides its text: the working folder, the repo,
 * the session and turn ids, the time, the role, the tool name, the source path, the harness. The text pass
 * redacts block texts; a secret can reach these too (a `.project_root` read through a link, a tool name
 * a model made up), and every one of them is published with the row. The push gate scans them again.
 *
 * Values repeat from turn to turn, so each distinct value is scanned once per session. A working folder is
 * stored munged (every character but a letter or digit made `-`), which glues a key to the words around it:
 * it is scanned with each `-` read as a space too (the same length, so a finding's range is the same).
 */

import { applyRedactions, type Finding, findingsPerText } from "../redact/index.js";
import { isPlainValue } from "../sync/index.js";
import type { Turn } from "../traces/index.js";

/** Redacts the other columns of one session's turns, remembering each value it has scanned. */
export class FieldRedactor {
  /** Working folder → its redacted form, or null when clean. */
  private readonly folders = new Map<string, string | null>();
  /** Any other value → its redacted form, or null when clean. */
  private readonly values = new Map<string, string | null>();
  /** Secrets replaced, by rule (each distinct value counted once). */
  readonly counts: Record<string, number> = {};

  /** The redacted form of `value` (scanned by {@link scan} before). */
  private clean(value: string, workdir = false): string {
    return (workdir ? this.folders : this.values).get(value) ?? value;
  }

  /** Scans the values not scanned before. */
  private async scan(values: [string, boolean][]): Promise<void> {
    const fresh: [string, boolean][] = [];
    for (const [v, w] of values) {
      const done = w ? this.folders : this.values;
      if (v === "" || done.has(v) || isPlainValue(v)) continue;
      done.set(v, null);
      fresh.push([v, w]);
    }
    if (fresh.length === 0) return;
    const texts = fresh.flatMap(([v, w]) => (w ? [v, v.replaceAll("-", " ")] : [v]));
    const found = await findingsPerText(texts);
    let at = 0;
    for (const [v, w] of fresh) {
      const findings: Finding[] = found.slice(at, at + (w ? 2 : 1)).flat();
      at += w ? 2 : 1;
      if (findings.length === 0) continue;
      const r = applyRedactions(v, findings);
      for (const [rule, n] of Object.entries(r.counts)) this.counts[rule] = (this.counts[rule] ?? 0) + n;
      (w ? this.folders : this.values).set(v, r.text);
    }
  }

  /** Redacts the repo facet of the session (one value). */
  async repo(value: string): Promise<string> {
    await this.scan([[value, false]]);
    return this.clean(value);
  }

  /** Redacts every column but the text of these turns and their blocks, in place. */
  async turns(turns: Turn[]): Promise<void> {
    const values: [string, boolean][] = [];
    for (const t of turns) {
      values.push([t.workdir, true]);
      for (const v of [t.sessionId, t.turnUuid, t.parentUuid, t.ts, t.role, t.sourcePath, t.harness])
        if (v !== null) values.push([v, false]);
      for (const b of t.blocks) if (b.toolName !== null) values.push([b.toolName, false]);
    }
    await this.scan(values);
    for (const t of turns) {
      t.workdir = this.clean(t.workdir, true);
      t.sessionId = this.clean(t.sessionId);
      t.turnUuid = this.clean(t.turnUuid);
      if (t.parentUuid !== null) t.parentUuid = this.clean(t.parentUuid);
      t.ts = this.clean(t.ts);
      t.role = this.clean(t.role);
      t.sourcePath = this.clean(t.sourcePath);
      t.harness = this.clean(t.harness);
      for (const b of t.blocks) if (b.toolName !== null) b.toolName = this.clean(b.toolName);
    }
  }
}
