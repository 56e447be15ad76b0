#!/usr/bin/env bash
# A second launch opens a second window (docs/INSTALL.md): with one window open and editing, a
# second `attnlab FILE` opens its own window on FILE while the first stays open, and the first
# window's recovery file stays the first window's; once the first window is gone (kill -9: the
# kernel drops its lock, which a lock file with a PID in it would not) the next window owns the
# session again and offers the first window's unsaved work back. That a window refuses the session
# while another holds the lock is tests/unit/instance_lock_test.cpp's.
# Usage: second_window_test.sh ATTNLAB   (needs Xvfb and xdotool; starts its own X server)
set -euo pipefail
APP=$1

# A private X server in a temporary folder (private_xvfb.sh says why).
source "$(dirname "$0")/../private_xvfb.sh"
private_xvfb_test xdotool
export XDG_CONFIG_HOME=$tmp/config
rec=$XDG_CONFIG_HOME/attnlab/recovery.json

start() {  # start ARGS...: sets $started to the new process, which has a window
  "$APP" "$@" >>"$tmp/app.log" 2>&1 &
  started=$!
  apps+=("$started")
  wait_for 60 has_window "$started" || { echo "FAIL: no window for attnlab $*"; cat "$tmp/app.log"; exit 1; }
}
rec_pid() { json_field "$rec" pid; }

cat >"$tmp/second.json" <<'JSON'
{"format": "attnlab-scenario", "version": 1, "title": "Second window",
 "Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[1, 2], [3, 4]]}
JSON

echo "window 1: open, edit"
start gui
first=$started
press_until 30 "$first" m test -s "$rec" || { echo "FAIL: window 1 wrote no recovery file"; exit 1; }
[ "$(rec_pid)" = "$first" ] || { echo "FAIL: the recovery file is not window 1's"; exit 1; }

echo "window 2: attnlab FILE while window 1 is open"
start "$tmp/second.json"
second=$started
[ "$second" != "$first" ] && has_window "$first" || { echo "FAIL: window 1 did not stay open"; exit 1; }
press "$second" m
sleep 2  # four times the recovery delay: a write by window 2 would have happened by now
[ "$(rec_pid)" = "$first" ] || { echo "FAIL: window 2 wrote window 1's recovery file"; exit 1; }
grep -q "Second window" "$rec" && { echo "FAIL: window 1's recovery file holds window 2's document"; exit 1; }

echo "window 1 killed; window 3 owns the session and offers window 1's work back"
kill -9 "$second" "$first"; wait "$second" "$first" 2>/dev/null || true
start gui
third=$started
sleep 2
[ "$(rec_pid)" = "$first" ] || { echo "FAIL: window 3 overwrote the recovery file before the offer was answered"; exit 1; }
restored() { [ "$(rec_pid)" = "$third" ]; }
press_until 30 "$third" Return restored || { echo "FAIL: window 3 did not take over the session (no offer restored)"; cat "$tmp/app.log"; exit 1; }
echo "ok: a second window kept its own document and never touched the first window's recovery file"
