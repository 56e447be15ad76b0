#!/usr/bin/env bash
# The GUI monkey on the real window (docs/ROBUSTNESS.md, issue 38): the app under a private Xvfb with
# ATTNLAB_GUI_MONKEY set (app/gui/shell/monkey.hpp), random clicks, drags, wheel turns, shortcut keys
# and typing from a seed, on one of seven starting points. The app quitting through its own menu is
# restarted and goes on with the actions left. It must never abort, crash or report a sanitizer
# error; afterwards the session it left must open again, on the same document.
# Usage: monkey_test.sh ATTNLAB SCENARIO SEED ACTIONS
#        monkey_test.sh ATTNLAB SCENARIO SEED --seconds SECONDS
# SCENARIO: default (the default lesson), large (n = m = 512), streamed (n = m = 1024 with a dense
# limit of 8 MiB, so that it and anything larger streams), model (the Model window on the built-in
# induction model), family (the Model window on a random Llama-style model with rotary positions,
# grouped-query heads and a tokenizer.json; family_model.py: the seed picks the family), training
# (the Training window training), online-softmax (that lesson).
# MONKEY_KEEP=DIR keeps the action log, the app's output and the reports there.
set -euo pipefail
APP=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
SCENARIO=$2
SEED=$3
shift 3
mode=actions
budget=$1
if [ "$1" = --seconds ]; then mode=seconds; budget=$2; fi

# A private X server in a temporary folder (private_xvfb.sh says why).
source "$HERE/../private_xvfb.sh"
private_xvfb_test
# MONKEY_KEEP: the logs and reports are copied out before the folder goes.
keep_logs() {
  if [ -n "${MONKEY_KEEP:-}" ]; then mkdir -p "$MONKEY_KEEP"; cp "$tmp"/*.log "$tmp"/report.* "$MONKEY_KEEP"/ 2>/dev/null || true; fi
}
trap 'keep_logs; end_private_xvfb_test' EXIT
# Everything the app writes stays in here: the session, recovery and imgui.ini (config), the Training
# window's scratch models (tmp), and whatever the monkey saves (work: the file dialogs start there and
# the monkey keeps them inside it).
export XDG_CONFIG_HOME=$tmp/config HOME=$tmp/home TMPDIR=$tmp/tmp
mkdir -p "$XDG_CONFIG_HOME" "$HOME" "$TMPDIR" "$tmp/work"
cd "$tmp/work"
export ATTNLAB_GUI_SIZE=${ATTNLAB_GUI_SIZE:-1280x720}
# The real window runs Mesa's GLX driver, unloaded before LeakSanitizer would report (scripts/test):
# memory errors are caught, leaks are not. UBSan stops at its first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}
[[ $ASAN_OPTIONS == *detect_leaks=* ]] || ASAN_OPTIONS+=:detect_leaks=0
# An assert (Eigen's, ImGui's) aborts: with handle_abort ASan prints where.
[[ $ASAN_OPTIONS == *handle_abort=* ]] || ASAN_OPTIONS+=:handle_abort=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# A scenario file of n × d_k queries, m × d_k keys, m × d_v values with smooth varied numbers.
write_scenario() {  # write_scenario N M D_K D_V TITLE
  awk -v n="$1" -v m="$2" -v dk="$3" -v dv="$4" -v title="$5" '
    function mat(rows, cols, salt,   i, j) {
      printf "["
      for (i = 0; i < rows; ++i) {
        printf "%s[", i ? "," : ""
        for (j = 0; j < cols; ++j) printf "%s%.4f", j ? "," : "", 2 * sin(i * 0.37 + j * 1.3 + salt) * cos(i * 0.011 * salt)
        printf "]"
      }
      printf "]"
    }
    BEGIN {
      printf "{\"format\": \"attnlab-scenario\", \"version\": 1, \"title\": \"%s\", \"Q\": ", title
      mat(n, dk, 1); printf ", \"K\": "; mat(m, dk, 2); printf ", \"V\": "; mat(m, dv, 3); printf "}\n"
    }'
}

args=(gui)
keep=  # the scenario's subject, a window the monkey never closes by its close button
case $SCENARIO in
  default) ;;
  large) write_scenario 512 512 16 16 "monkey: n = m = 512" >large.json; args+=(large.json) ;;
  streamed)
    export ATTNLAB_DENSE_LIMIT_MIB=8
    write_scenario 1024 1024 16 8 "monkey: streamed" >streamed.json
    args+=(streamed.json) ;;
  model) args+=(--model induction); keep=,keep=Model ;;
  family) /usr/bin/python3 "$HERE/family_model.py" family "$SEED" >/dev/null; args+=(--model family); keep=,keep=Model ;;
  training) export ATTNLAB_GUI_TRAIN=40 ;;
  online-softmax) args+=(--preset online-softmax) ;;
  *) echo "unknown scenario $SCENARIO (default, large, streamed, model, family, training, online-softmax)"; exit 2 ;;
esac

log=$tmp/monkey.log
fail() {
  echo "FAIL: $SCENARIO, seed $SEED: $1"
  echo "--- the app's output (last 80 lines)"
  tail -n 80 "$tmp/app.log" 2>/dev/null || true
  echo "--- the monkey's last 25 actions ($log)"
  tail -n 25 "$log" 2>/dev/null || true
  exit 1
}
# A sanitizer or Eigen report in the app's output, whatever its exit status.
check_output() {
  if grep -q -E "runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer|Assertion .* failed" "$tmp/app.log"; then
    fail "$1: a sanitizer or assertion report"
  fi
}
field() { sed -n "s/^$1 //p" "$2"; }

# Runs the app with ATTNLAB_GUI_MONKEY=$1 and arguments $2...; sets rc.
run_app() {
  local monkey=$1 limit=$2; shift 2
  rc=0
  ATTNLAB_GUI_MONKEY=$monkey timeout -s KILL "$limit" "$APP" "$@" >>"$tmp/app.log" 2>&1 &
  pid=$!
  apps=("$pid")
  wait "$pid" || rc=$?
  apps=()
}

remaining=$budget
run=0
start=$SECONDS
while :; do
  run=$((run + 1))
  seed=$((SEED + (run - 1) * 7919))  # the first run is the seed itself: its actions are the log's first
  report=$tmp/report.$run
  limit=$([ "$mode" = seconds ] && echo $((remaining + 300)) || echo 900)
  echo "run $run: seed $seed, $mode $remaining" | tee -a "$log"
  run_app "seed=$seed,$mode=$remaining,log=$log,report=$report$keep" "$limit" "${args[@]}"
  [ "$rc" = 137 ] && fail "run $run hung: killed after $limit s"
  [ "$rc" = 0 ] || fail "run $run exited with status $rc"
  check_output "run $run"
  [ -s "$report" ] || fail "run $run left no report"
  done_actions=$(field actions "$report")
  if [ "$mode" = seconds ]; then remaining=$((budget - (SECONDS - start))); else remaining=$((remaining - done_actions)); fi
  [ "$(field ended "$report")" = quit ] || break
  echo "run $run quit through the app's menu after $done_actions actions" | tee -a "$log"
  [ "$remaining" -gt 0 ] || break
  [ "$run" -lt 50 ] || fail "the app quit 50 times"
done
left=$report

# The session it left opens again: a plain start (no document on the command line), a few frames.
echo "session check" | tee -a "$log"
run_app "seed=0,actions=0,report=$tmp/report.session" 300 gui
[ "$rc" = 0 ] || fail "the session it left does not open: status $rc"
check_output "the session check"
session=$tmp/report.session
[ -z "$(field start_error "$session")" ] || fail "the session it left does not open: $(field start_error "$session")"
for f in title n m d_k d_v; do
  [ "$(field "$f" "$session")" = "$(field "$f" "$left")" ] ||
    fail "the session opened on another document: $f is '$(field "$f" "$session")', the monkey left '$(field "$f" "$left")'"
done
echo "PASS: $SCENARIO, seed $SEED: $(grep -c '^[0-9]' "$log") actions in $run runs, $((SECONDS - start)) s"
