/**
 * The hook scripts agents run: `funes-index.sh <harness> [memory]` and `funes-push.sh <memory> [harness]`.
 * The foreground part drains the hook payload, starts a detached worker and exits at once without printing
 * anything (nothing reaches the agent's context). The worker runs `funes index --harness <h>` or
 * `funes push <memory> --hook --harness <h>` (a boundary push: it indexes that agent's newest turns, waiting
 * for a running index job, embeds what still waits, then publishes), one at a time per job: a run that finds
 * another running leaves a note, and the running one goes again when it is done, so no turn is missed. A
 * push that leaves rows waiting for vectors exits 75 and goes again (bounded). An index hook given a memory
 * (agents with no session-end event: Codex) publishes after its last pass, once no newer turn waits. Every
 * job's outcome is one line in `funes-sync.log` beside the script; `funes status` reads the push lines.
 */
import { chmodSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeIfChanged } from "./files.js";

/** The two scripts' file names (also how funes recognises its own hook entries). */
export const INDEX_SCRIPT = "funes-index.sh";
export const PUSH_SCRIPT = "funes-push.sh";
/** The workers' log, beside the scripts. */
export const SYNC_LOG = "funes-sync.log";

/** How the scripts run funes: argv words (e.g. [node, /path/to/main.js] or [/usr/local/bin/funes]). */
export type FunesCommand = readonly string[];

function shQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

const COMMON = (cmd: FunesCommand) => `set -u
FUNES=(${cmd.map(shQuote).join(" ")})
if [ ! -e "\${FUNES[0]}" ] && ! command -v "\${FUNES[0]}" >/dev/null 2>&1; then
  # The recorded command is gone (moved or reinstalled): fall back to funes on PATH.
  export PATH="$PATH:$HOME/.local/bin:/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"
  FUNES=(funes)
fi
here="$(cd "$(dirname "$0")" && pwd)"
log="$here/${SYNC_LOG}"
stamp() { date +%Y-%m-%dT%H:%M:%S%z; }
note() { echo "$(stamp) $*" >>"$log"; }

# Foreground (what the agent runs): drain the payload, hand off, print nothing, return. Inside \`funes ask\`
# (FUNES_ASK set), the agent's one-shot answer is not a session to keep: nothing to do.
if [ "\${1:-}" != "--worker" ] && [ -n "\${FUNES_ASK:-}" ]; then
  cat >/dev/null 2>&1 || true
  exit 0
fi
if [ "\${1:-}" != "--worker" ]; then
  cat >/dev/null 2>&1 || true
  nohup bash "$0" --worker "$@" </dev/null >/dev/null 2>&1 &
  disown 2>/dev/null || true
  exit 0
fi
shift
# glibc gives each thread that allocates its own arena and keeps what they free: a long index run with
# Lance's threads held ≈ 300 MB more at a million chunks. Two arenas serve the worker as well.
export MALLOC_ARENA_MAX="\${MALLOC_ARENA_MAX:-2}"

# When process $1 started, or nothing when it is not running: field 22 of /proc/<pid>/stat on Linux (clock
# ticks after boot; counted after the command name, which may hold spaces), else \`ps -o lstart=\`.
started() {
  if [ -r "/proc/$1/stat" ]; then
    s="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    s="\${s##*) }"
    set -f
    set -- $s
    set +f
    echo "\${20:-}"
  else
    set -f
    echo $(ps -o lstart= -p "$1" 2>/dev/null)
    set +f
  fi
}

# Whether the worker a lock names ($1 its pid, $2 its start) still runs: a pid the system has since given
# to another process (a worker killed, the machine rebooted) is not it, whatever kill -0 says. A lock of an
# older funes records no start: its pid alive is all there is, until the lock is an hour old.
owner_runs() {
  now="$(started "$1")"
  [ -n "$now" ] || { kill -0 "$1" 2>/dev/null; return; }
  if [ -n "$2" ]; then [ "$now" = "$2" ]; return; fi
  [ -z "$(find "$lock" -maxdepth 0 -mmin +60 2>/dev/null)" ]
}

# Takes the lock made: its pid file names this worker and when it started.
hold() {
  echo "$$ $(started $$)" >"$lock/pid"
  trap 'rm -rf "$lock"' EXIT
}

# One worker per job; a second one leaves a note for the first and leaves. The holder reads notes only
# after letting go of the lock, and a note-leaver leaves only if the lock is still held after its note: so
# whichever way the two interleave, a note is never lost (either the holder sees it, or the note-leaver
# finds the lock free and takes the turn itself). A lock whose worker is gone is taken over.
take_turn() {
  lock="$here/.$1.lock"
  again="$here/.$1.again"
  tries=0
  until mkdir "$lock" 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -gt 50 ] && { note "$JOB: can't take $lock; skipping"; exit 0; }
    pid=""
    start=""
    read -r pid start <"$lock/pid" 2>/dev/null || true
    if [ -n "$pid" ] && ! owner_runs "$pid" "$start"; then
      note "$JOB: took over $lock (its worker, pid $pid, is gone)"
      rm -rf "$lock"
      continue
    fi
    if [ -z "$pid" ] && [ -n "$(find "$lock" -maxdepth 0 -mmin +60 2>/dev/null)" ]; then
      rm -rf "$lock" # a worker that never got going, an hour ago
      continue
    fi
    touch "$again"
    [ -d "$lock" ] && exit 0
  done
  hold
}

# Ends a turn: lets go of the lock, then true (holding it again) when a note came in meanwhile.
go_again() {
  rm -rf "$lock"
  trap - EXIT
  [ -e "$again" ] || return 1
  mkdir "$lock" 2>/dev/null || return 1 # a newer worker has the turn, and does the work
  hold
}

if ! command -v "\${FUNES[0]}" >/dev/null 2>&1 && [ ! -e "\${FUNES[0]}" ]; then
  note "$JOB ABORT: funes not found; skipping."
  exit 0
fi
`;

/** Tries of a job that finds the memory's writer lock held (5 s apart): a boundary push may hold it ~2 min. */
const BUSY_TRIES = 36;
/** Rounds of a push worker that keeps finding rows waiting for vectors (each embeds, then publishes). */
const PUSH_ROUNDS = 12;

/** The index hook script. */
export function indexScript(cmd: FunesCommand): string {
  return `#!/usr/bin/env bash
# funes index hook: indexes the agent's new turns into the local funes memory, in the background; given a
# memory too, publishes to it after the last pass (agents that have no session-end event).
JOB=index
${COMMON(cmd)}
h="\${1:-claude}"
m="\${2:-}"
take_turn "index-$h"
while :; do
  rm -f "$again"
  for try in $(seq ${BUSY_TRIES}); do
    note "index[$h]: start"
    "\${FUNES[@]}" index --harness "$h" >>"$log" 2>&1
    rc=$?
    # 75: another funes run holds the memory's writer lock; wait and try again.
    [ "$rc" -eq 75 ] || break
    note "index[$h]: busy, retrying"
    sleep 5
  done
  if [ "$rc" -eq 0 ]; then note "index[$h]: ok"; else note "index[$h]: FAILED (exit $rc)"; fi
  go_again || break
done
if [ -n "$m" ]; then
  # No newer turn waits: publish this one now (the push indexes again first, so nothing is skipped).
  bash "$here/${PUSH_SCRIPT}" --worker "$m" "$h"
fi
`;
}

/** The push hook script. */
export function pushScript(cmd: FunesCommand): string {
  return `#!/usr/bin/env bash
# funes push hook: publishes the local funes memory to the bound Hub memory, in the background.
JOB=push
${COMMON(cmd)}
m="\${1:-}"
h="\${2:-}"
if [ -z "$m" ]; then
  note "push: skipped (no memory bound to this hook)"
  exit 0
fi
take_turn "push"
args=(push "$m" --hook)
[ -n "$h" ] && args+=(--harness "$h")
round=0
while :; do
  rm -f "$again"
  round=$((round + 1))
  note "push[$m]: start"
  out="$("\${FUNES[@]}" "\${args[@]}" 2>&1)"
  rc=$?
  [ -n "$out" ] && printf '%s\\n' "$out" >>"$log"
  # The reason, on the outcome line itself (funes prints it last, as "funes: …").
  why="$(printf '%s\\n' "$out" | sed -n 's/^funes: //p' | tail -n 1)"
  case "$rc" in
    0) note "push[$m]: ok\${why:+ — $why}" ;;
    2) note "push[$m]: WARN — \${why:-held back or refused; see above}" ;;
    75)
      if [ "$round" -lt ${PUSH_ROUNDS} ]; then
        note "push[$m]: again — \${why:-more to publish}"
        touch "$again"
      else
        note "push[$m]: FAILED (exit 75) — \${why:-more to publish}; the next session boundary goes on"
      fi
      ;;
    *) note "push[$m]: FAILED (exit $rc) — \${why:-see above}" ;;
  esac
  go_again || break
done
`;
}

/** Writes both scripts into `dir` (mode 0755); returns whether either changed. */
export function writeHookScripts(dir: string, cmd: FunesCommand): boolean {
  const a = writeIfChanged(join(dir, INDEX_SCRIPT), indexScript(cmd), 0o755);
  const b = writeIfChanged(join(dir, PUSH_SCRIPT), pushScript(cmd), 0o755);
  chmodSync(join(dir, INDEX_SCRIPT), 0o755);
  return a || b;
}

/** Removes the scripts, their log and the workers' lock notes from `dir`; true if anything was there. */
export function removeHookScripts(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const ours = (f: string) =>
    f === INDEX_SCRIPT ||
    f === PUSH_SCRIPT ||
    f === SYNC_LOG ||
    /^\.(index-[\w-]+|push)\.(lock|again)$/.test(f);
  const found = readdirSync(dir).filter(ours);
  for (const f of found) rmSync(join(dir, f), { recursive: true, force: true });
  return found.length > 0;
}

/** Removes the scripts and their log from `dir`, and `dir` once empty; says so in `report`. */
export function removeHookFolder(dir: string, report: string[]): void {
  if (removeHookScripts(dir)) report.push(`removed the hook scripts from ${dir}`);
  if (existsSync(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}

/** The command a hook entry runs: `bash "<script>" "<arg>"…`, with `\\` and `"` escaped. */
export function hookCommand(script: string, ...args: string[]): string {
  const q = (s: string) => `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  return ["bash", q(script), ...args.map(q)].join(" ");
}

/** True for a hook command funes wrote. */
export function isFunesCommand(command: unknown): boolean {
  return typeof command === "string" && (command.includes(INDEX_SCRIPT) || command.includes(PUSH_SCRIPT));
}
