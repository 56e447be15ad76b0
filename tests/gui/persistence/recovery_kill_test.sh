#!/usr/bin/env bash
# Never lose work, end to end: starts the real app under Xvfb, makes an edit with a key press,
# waits for the recovery file, kills the app with SIGKILL, starts it again, answers the
# "Restore unsaved work?" offer with Enter and checks the new run holds the edited document.
# Usage: recovery_kill_test.sh ATTNLAB   (needs Xvfb and xdotool; starts its own X server)
set -euo pipefail
APP=$1

# A private X server in a temporary folder (private_xvfb.sh says why).
source "$(dirname "$0")/../private_xvfb.sh"
private_xvfb_test xdotool
export XDG_CONFIG_HOME=$tmp
rec=$tmp/attnlab/recovery.json

window_or_gone() { has_window "$pid" || ! kill -0 "$pid"; }
no_window() {  # why there is no window
  local state=alive
  if ! kill -0 "$pid" 2>/dev/null; then local rc=0; wait "$pid" || rc=$?; state="exited with $rc"; fi
  echo "FAIL: no window from run $1 (pid $pid, $state, DISPLAY=$DISPLAY)"
  xdotool search --name . getwindowname %@ 2>&1 | head -5
  cat "$tmp/app.log"
  exit 1
}
# Starts the app and waits for its window. Any start failure fails the test, with the app's log.
start_app() {
  "$APP" gui >>"$tmp/app.log" 2>&1 &
  pid=$!
  apps=("$pid")
  wait_for 60 window_or_gone || true
  has_window "$pid" || no_window "$1"
}
field() { json_field "$rec" "$1"; }

echo "run 1: edit, then kill -9"
start_app 1
sleep 1
[ ! -e "$rec" ] || { echo "FAIL: a recovery file exists before any edit"; exit 1; }
# m: the next mask kind, an edit of the document
press_until 30 "$pid" m test -s "$rec" || { echo "FAIL: no recovery file within 30 s of the edit"; exit 1; }
edited=$(field scenario)
pid1=$(field pid)
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; apps=()

echo "run 2: the offer, Enter restores"
start_app 2
sleep 2
[ "$(field pid)" = "$pid1" ] || { echo "FAIL: run 2 overwrote the recovery file before the user answered"; exit 1; }
restored() { [ "$(field pid)" = "$pid" ] && [ "$(field scenario)" = "$edited" ]; }
press_until 30 "$pid" Return restored || { echo "FAIL: run 2 did not restore the edited document"; cat "$rec"; exit 1; }
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; apps=()
echo "ok: the edit survived kill -9 and was restored"
