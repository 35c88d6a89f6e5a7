#!/usr/bin/env bash
# funes push hook: publishes the local funes memory to the bound Hub memory, in the background.
JOB=push
# shellcheck source=funes-hook-common.sh
. "$(dirname "$0")/funes-hook-common.sh"
m="${1:-}"
h="${2:-}"
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
  out="$("${FUNES[@]}" "${args[@]}" 2>&1)"
  rc=$?
  [ -n "$out" ] && printf '%s\n' "$out" >>"$log"
  # The reason, on the outcome line itself (funes prints it last, as "funes: …").
  why="$(printf '%s\n' "$out" | sed -n 's/^funes: //p' | tail -n 1)"
  case "$rc" in
    0) note "push[$m]: ok${why:+ — $why}" ;;
    2) note "push[$m]: WARN — ${why:-held back or refused; see above}" ;;
    75)
      if [ "$round" -lt 12 ]; then
        note "push[$m]: again — ${why:-more to publish}"
        touch "$again"
      else
        note "push[$m]: FAILED (exit 75) — ${why:-more to publish}; the next session boundary goes on"
      fi
      ;;
    *) note "push[$m]: FAILED (exit $rc) — ${why:-see above}" ;;
  esac
  go_again || break
done
