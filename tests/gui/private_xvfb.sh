# Sourced by the GUI shell tests, what they share: start_private_xvfb DIR starts an X server of
# the test's own, sets DISPLAY and the variable `xvfb` (its pid, for the caller's cleanup), and uses
# DIR for its display number and log; private_xvfb_test sets up a whole test around one (a
# temporary folder, the server, the cleanup on exit); wait_for, window_of, has_window, press and
# press_until wait for, find and drive the app's window; json_field reads what the app wrote.
#
# Why a private one: on a shared machine another test's Xvfb can take or drop the display that
# xvfb-run chose, and keyboard focus must not go to someone else's window. -displayfd makes Xvfb
# pick a free display itself and write its number only once it accepts connections (a lock file
# appears before the server listens, and none at all with -displayfd). -noreset: without it the
# server resets each time its last client leaves (every xdotool poll before the app connects, and
# a kill -9 of the app); an app connecting during a reset lost its connection and Xlib's default
# I/O error handler exited 1 from inside GLFW, the "silent exit 1" seen about 1 run in 6.
start_private_xvfb() {
  local dir=$1
  Xvfb -displayfd 3 -noreset -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
  xvfb=$!
  for ((i = 0; i < 600; ++i)); do
    [ -s "$dir/display" ] && break
    kill -0 "$xvfb" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$dir/display" ] || { echo "FAIL: Xvfb did not start within 60 s"; cat "$dir/xvfb.log"; exit 1; }
  export DISPLAY=":$(tr -d '[:space:]' <"$dir/display")"
}

wait_for() {  # wait_for SECONDS COMMAND...: until the command succeeds (1 if it never does)
  local limit=$1; shift
  for ((i = 0; i < limit * 10; ++i)); do
    if "$@" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
# The visible Attention Lab window of process $1 (empty when it has none).
window_of() { xdotool search --onlyvisible --pid "$1" --name "Attention Lab" | head -1; }
has_window() { [ -n "$(window_of "$1")" ]; }
press() {  # press PID KEY: KEY in the window of process PID, held long enough for a frame to see it
           # (ImGui 1.86 reads key state, not events, so a press and release in one frame would be missed)
  local wid; wid=$(window_of "$1")
  xdotool windowfocus --sync "$wid" keydown "$2"
  sleep 0.5
  xdotool keyup "$2"
}
press_until() {  # press_until SECONDS PID KEY COMMAND...: presses KEY, again every 10 s, until COMMAND
                 # succeeds (1 if it never does within SECONDS). A frame slower than the press (the
                 # sanitized build's first frames on a loaded machine) polls the key's down and up
                 # together and never sees it held: one press then went unseen about once a day.
  local limit=$1 pid=$2 key=$3
  shift 3
  local end=$((SECONDS + limit))
  while ((SECONDS < end)); do
    press "$pid" "$key"
    wait_for 10 "$@" && return 0
  done
  return 1
}

# json_field FILE KEY: FILE's top-level KEY as JSON (objects with sorted keys: two compare as text).
json_field() { /usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]], sort_keys=True))' "$1" "$2"; }

# private_xvfb_test [TOOL...]: checks that Xvfb and each TOOL (xdotool, say) are installed, then
# makes a temporary folder `tmp` with a private X server, and a trap that on exit kills every app
# process the test put in `apps` (kill -9: a hung app must not outlive its test), stops the server
# and removes the folder. Each step tolerates failure: under `set -e` a failed `kill` of an app that
# had already exited ended the trap early and left this test's Xvfb running for good.
private_xvfb_test() {
  local tool
  for tool in Xvfb "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/setup installs it)"; exit 1; }
  done
  tmp=$(mktemp -d)
  apps=()
  xvfb=
  trap end_private_xvfb_test EXIT
  start_private_xvfb "$tmp"
}
end_private_xvfb_test() {
  for p in "${apps[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ -n "$xvfb" ]; then kill "$xvfb" 2>/dev/null || true; wait "$xvfb" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
