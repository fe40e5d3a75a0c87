#!/bin/bash
# rein-harbor-run "<instruction>": runs rein unattended in a Harbor task container.
# Reads the endpoint from the environment (OPENAI_BASE_URL, OPENAI_API_KEY, REIN_MODEL)
# and writes what Harbor reads into REIN_LOGS_DIR (default /logs/agent):
#   trajectory.json      the ATIF-v1.7 trajectory (Harbor's agent trajectory file)
#   rein-summary.json    the outcome, written atomically (status, exitCode, usage, …)
#   rein-events.jsonl    the event stream (--json-events), one JSON line per trace event
#   rein-run/            the run directory (trace, record, saved state) for `rein resume`
# REIN_TEST_CMD sets the verification command the gate requires; without it the run uses
# the no-verification-gate preset (Terminal-Bench's tests are hidden from the agent).
# REIN_CONFIG is a rules file (the agent class writes one with the task's MCP servers).
# REIN_WORKDIR is the repository (default: the current directory); REIN_ARGS adds flags.
# Exit code: rein's (0 done, 1 unfinished, 2 usage, 3 endpoint, 4 crashed, 5 awaiting an approval, 6 failed by a rule, 143 SIGTERM),
# except that REIN_HARBOR_EXIT_ZERO_UNFINISHED=1 reports 1 and 6 as 0 so Harbor's verifier judges the run.
set -uo pipefail

[ $# -ge 1 ] || { echo 'usage: rein-harbor-run "<instruction>"' >&2; exit 2; }
instruction="$1"
logs="${REIN_LOGS_DIR:-/logs/agent}"
workdir="${REIN_WORKDIR:-$PWD}"
rein="${REIN_BIN:-rein}"
mkdir -p "$logs"

# Nobody is there to answer an approval in a task container (the container is the sandbox): ask about nothing.
args=(run "$workdir" "$instruction" --json-events --summary "$logs/rein-summary.json" --atif "$logs/trajectory.json" --run-dir "$logs/rein-run" --approval never)
if [ -n "${REIN_TEST_CMD:-}" ]; then args+=(--test-cmd "$REIN_TEST_CMD"); else args+=(--preset no-verification-gate); fi
if [ -n "${REIN_MODEL:-}" ]; then args+=(--model "$REIN_MODEL"); fi
if [ -n "${REIN_CONFIG:-}" ]; then args+=(--config "$REIN_CONFIG"); fi
if [ -n "${REIN_ARGS:-}" ]; then
  read -r -a extra <<<"$REIN_ARGS"
  args+=("${extra[@]}")
fi

# rein runs in the background so a SIGTERM to this script reaches it and it can save its state and files.
"$rein" "${args[@]}" >"$logs/rein-events.jsonl" 2>"$logs/rein-stderr.txt" </dev/null &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
wait "$child"
code=$?
# wait returns early when a trapped signal arrives: wait again for rein's own exit code.
if kill -0 "$child" 2>/dev/null; then wait "$child"; code=$?; fi
# A rein that died before writing its trajectory (a crash, an OOM kill) left its trace: export from that.
if [ ! -f "$logs/trajectory.json" ] && [ -f "$logs/rein-run/trace.jsonl" ]; then
  "$rein" trace export "$logs/rein-run" --format atif --out "$logs/trajectory.json" 2>>"$logs/rein-stderr.txt" || true
fi
if { [ "$code" = 1 ] || [ "$code" = 6 ]; } && [ "${REIN_HARBOR_EXIT_ZERO_UNFINISHED:-0}" = 1 ]; then code=0; fi
exit "$code"
