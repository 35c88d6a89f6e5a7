#!/usr/bin/env bash
# funes index hook: indexes the agent's new turns into the local funes memory, in the background; given a
# memory too, publishes to it after the last pass (agents that have no session-end event).
JOB=index
# shellcheck source=funes-hook-common.sh
. "$(dirname "$0")/funes-hook-common.sh"
h="${1:-claude}"
m="${2:-}"
take_turn "index-$h"
while :; do
  rm -f "$again"
  for _ in $(seq 36); do
    note "index[$h]: start"
    "${FUNES[@]}" index --harness "$h" >>"$log" 2>&1
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
  bash "$here/funes-push.sh" --worker "$m" "$h"
fi
