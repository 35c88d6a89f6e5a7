# shellcheck shell=bash
# What both funes hook scripts share (sourced by funes-index.sh and funes-push.sh, installed beside them by
# `funes add`): the funes command, the log, the hand-off from the agent's foreground to a detached worker,
# and one worker per job with notes so no turn is missed. `FUNES` is filled in at install.
set -u
FUNES=() # funes:fill
if [ ! -e "${FUNES[0]}" ] && ! command -v "${FUNES[0]}" >/dev/null 2>&1; then
  # The recorded command is gone (moved or reinstalled): fall back to funes on PATH.
  export PATH="$PATH:$HOME/.local/bin:/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"
  FUNES=(funes)
fi
here="$(cd "$(dirname "$0")" && pwd)"
log="$here/funes-sync.log"
stamp() { date +%Y-%m-%dT%H:%M:%S%z; }
note() { echo "$(stamp) $*" >>"$log"; }

# Foreground (what the agent runs): drain the payload, hand off, print nothing, return. Inside `funes ask`
# (FUNES_ASK set), the agent's one-shot answer is not a session to keep: nothing to do.
if [ "${1:-}" != "--worker" ] && [ -n "${FUNES_ASK:-}" ]; then
  cat >/dev/null 2>&1 || true
  exit 0
fi
if [ "${1:-}" != "--worker" ]; then
  cat >/dev/null 2>&1 || true
  nohup bash "$0" --worker "$@" </dev/null >/dev/null 2>&1 &
  disown 2>/dev/null || true
  exit 0
fi
shift
# glibc gives each thread that allocates its own arena and keeps what they free: a long index run with
# Lance's threads held ≈ 300 MB more at a million chunks. Two arenas serve the worker as well.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"

# When process $1 started, or nothing when it is not running: field 22 of /proc/<pid>/stat on Linux (clock
# ticks after boot; counted after the command name, which may hold spaces), else `ps -o lstart=`.
started() {
  if [ -r "/proc/$1/stat" ]; then
    s="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
    s="${s##*) }"
    set -f
    # Split on purpose: the fields after the command name.
    # shellcheck disable=SC2086
    set -- $s
    set +f
    echo "${20:-}"
  else
    set -f
    # Unquoted on purpose: one space between the fields, none around them.
    # shellcheck disable=SC2046,SC2005
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

if ! command -v "${FUNES[0]}" >/dev/null 2>&1 && [ ! -e "${FUNES[0]}" ]; then
  note "$JOB ABORT: funes not found; skipping."
  exit 0
fi
