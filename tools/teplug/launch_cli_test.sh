#!/bin/bash
# `teplug run` with ranks as processes, through the shipped CLI (the first
# argument): --launch processes --ranks 2 with the cpu provider's Gloo
# collective (a config rule prefers it) passes the all-reduce checks against
# the reference's shared-memory collective and the sum in double, and shows
# the thread budget; two ranks started by hand (--rank) meet in a directory;
# a rank that fails is named and the launch ends; a finished rendezvous
# directory is refused; tcp: rendezvous says why it is not offered; under
# mpirun (when OpenMPI is installed) ranks come from its environment; ranks
# that are on two hosts (TEPLUG_HOST_ID) get Gloo without a rule; ranks meet
# on a Redis server (when redis-server is installed; tools/setup.sh does).
set -u
TEPLUG="$1"
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG TEPLUG_CPU_THREADS \
  TEPLUG_LOCAL_RANKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
export TEPLUG_GLOO_IFNAME=lo
TMP="${TEST_TMPDIR:-/tmp}/launch_cli"
rm -rf "$TMP" && mkdir -p "$TMP"
OUT="$TMP/out.txt"
ERR="$TMP/err.txt"
FAILURES=0
SMALL=(--dtype fp32 --batch 1 --seq 16 --heads 2 --head-dim 16 --no-discovery)
CORES=$(nproc)

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# expect_in FILE TEXT: FILE contains TEXT (fixed string).
expect_in() {
  if ! grep -qF -- "$2" "$1"; then
    fail "$LAST: $(basename "$1") lacks \"$2\""
    echo "--- stdout"; cat "$OUT"; echo "--- stderr"; cat "$ERR"
  fi
}

# expect_match FILE REGEX: a line of FILE matches REGEX (extended).
expect_match() {
  if ! grep -qE -- "$2" "$1"; then
    fail "$LAST: no line of $(basename "$1") matches /$2/"
    echo "--- stdout"; cat "$OUT"; echo "--- stderr"; cat "$ERR"
  fi
}

expect_status() {
  if [[ "$STATUS" != "$1" ]]; then
    fail "$LAST: exit status $STATUS, expected $1"
    echo "--- stdout"; cat "$OUT"; echo "--- stderr"; cat "$ERR"
  fi
}

CONFIG="$TMP/gloo.textproto"
echo 'rules { name: "ranks-across-hosts" match { interfaces: "collective" } prefer: "cpu" }' \
  >"$CONFIG"

# run_by_hand DIR CONFIG0 CONFIG1: ranks 0 and 1 as two commands meeting in
# DIR (as on two hosts), each with its config; rank 0's output in $OUT/$ERR,
# statuses in $STATUS and $RANK1_STATUS. TEPLUG_LOCAL_RANKS says both share
# this machine.
run_by_hand() {
  local -x TEPLUG_LOCAL_RANKS=2
  "$TEPLUG" run --ranks 2 --rank 1 --rendezvous "file:$1" --config "$3" "${SMALL[@]}" \
    >"$TMP/rank1.out" 2>"$TMP/rank1.err" &
  local rank1=$!
  timeout 120 "$TEPLUG" run --ranks 2 --rank 0 --rendezvous "file:$1" --config "$2" \
    "${SMALL[@]}" >"$OUT" 2>"$ERR"
  STATUS=$?
  wait $rank1
  RANK1_STATUS=$?
}

# Two processes, Gloo serving the all-reduces, each checked against the
# reference's collective and the tool's own sum in double.
LAST="teplug run --launch processes --ranks 2 --config gloo.textproto"
timeout 300 "$TEPLUG" run --launch processes --ranks 2 --config "$CONFIG" "${SMALL[@]}" \
  >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 0
BUDGET=$((CORES / 2 > 0 ? CORES / 2 : 1))
expect_in "$OUT" "ranks: 2 ranks (processes, rendezvous file:"
expect_in "$OUT" "rank 0 here (started by --launch processes); TEPLUG_CPU_THREADS=$BUDGET per rank process ($CORES core"
expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo.*ranks-across-hosts"
expect_match "$OUT" "all_reduce sum dw_o \(fp32, 2 ranks\).*cpu/gloo"
expect_in "$OUT" "all within tolerance"
expect_in "$OUT" "rank processes: rank 0 exit status 0, rank 1 exit status 0"

# The user's budget wins and is shown.
LAST="TEPLUG_CPU_THREADS=1 teplug run --launch processes --ranks 2"
TEPLUG_CPU_THREADS=1 timeout 300 "$TEPLUG" run --launch processes --ranks 2 "${SMALL[@]}" \
  >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 0
expect_in "$OUT" "TEPLUG_CPU_THREADS=1 (set by the user)"
expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*reference/collective"

# Ranks started by hand (one command per host) meet in a directory; rank 1's
# report goes to its log, rank 0 prints the table.
DIR="$TMP/by-hand"
LAST="teplug run --ranks 2 --rank 0|1 --rendezvous file:DIR"
run_by_hand "$DIR" "$CONFIG" "$CONFIG"
expect_status 0
[[ "$RANK1_STATUS" == 0 ]] || fail "$LAST: rank 1 exit status $RANK1_STATUS"
expect_in "$OUT" "rank 0 here (--rank); TEPLUG_CPU_THREADS=$BUDGET per rank process ($CORES core"
expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo"
expect_in "$TMP/rank1.err" "rank 1 of 2 writes its report to $DIR/rank-1.log"
expect_in "$DIR/rank-1.log" "rank 1 here (--rank)"
[[ -s "$TMP/rank1.out" ]] && fail "$LAST: rank 1 printed to stdout: $(cat "$TMP/rank1.out")"
# The directory now holds a finished run: refused.
LAST="teplug run --rank 0 --rendezvous file:DIR (again)"
"$TEPLUG" run --ranks 2 --rank 0 --rendezvous "file:$DIR" "${SMALL[@]}" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 1
expect_in "$ERR" "holds a finished run"

# Rank 1 cannot write its report (its log path is a directory), so it fails
# before its first op; the launcher names it, and rank 0 stops at the
# launcher's note instead of waiting out its timeouts.
DIR="$TMP/failing"
mkdir -p "$DIR/rank-1.log"
LAST="teplug run --launch processes --ranks 2, rank 1 fails at start"
timeout 120 "$TEPLUG" run --launch processes --ranks 2 --rendezvous "file:$DIR" "${SMALL[@]}" \
  >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 1
expect_in "$OUT" "rank processes: rank 0 exit status 1, rank 1 exit status 1"
expect_in "$ERR" "cannot write rank 1's report to $DIR/rank-1.log"
expect_in "$OUT" "FAILED: the job stopped: rank 0:"
expect_in "$OUT" "rank 1: cannot write rank 1's report"

# A rank that fails mid-job (rank 1's config denies every collective
# provider) is named in rank 0's table, and both end.
DIR="$TMP/deny"
LAST="teplug run --rank 0|1, rank 1 has no collective"
DENY="$TMP/deny.textproto"
cat >"$DENY" <<'CFG'
rules { name: "no-collectives" match { interfaces: "collective" } deny: "cpu" deny: "reference" }
CFG
run_by_hand "$DIR" "$CONFIG" "$DENY"
expect_status 1
[[ "$RANK1_STATUS" == 1 ]] || fail "$LAST: rank 1 exit status $RANK1_STATUS, expected 1"
expect_in "$OUT" "FAILED: the job stopped: rank 0:"
expect_in "$OUT" "rank 1: dw_o: no collective provider"
expect_in "$DIR/rank-1.log" "no collective provider"

# Ranks on two hosts, as the kernel sees them (TEPLUG_HOST_ID makes each
# process a host of its own), and no config rule: the reference's
# shared-memory collective serves one host only, so Gloo serves, the row
# says why, and the all-reduces are checked against the sum in double only.
# run_on_two_hosts RENDEZVOUS: ranks 0 and 1 started by hand, each a host of
# its own (TEPLUG_HOST_ID); rank 0's output in $OUT/$ERR, rank 1's in
# rank1.out/err, statuses in $STATUS and $RANK1_STATUS.
run_on_two_hosts() {
  TEPLUG_LOCAL_RANKS=1 TEPLUG_HOST_ID=host-b "$TEPLUG" run --ranks 2 --rank 1 --rendezvous "$1" \
    "${SMALL[@]}" >"$TMP/rank1.out" 2>"$TMP/rank1.err" &
  local rank1=$!
  TEPLUG_LOCAL_RANKS=1 TEPLUG_HOST_ID=host-a timeout 120 "$TEPLUG" run --ranks 2 --rank 0 \
    --rendezvous "$1" "${SMALL[@]}" >"$OUT" 2>"$ERR"
  STATUS=$?
  wait $rank1
  RANK1_STATUS=$?
}
DIR="$TMP/two-hosts"
LAST="TEPLUG_HOST_ID=a|b teplug run --ranks 2 --rank 0|1 --rendezvous file:DIR"
run_on_two_hosts "file:$DIR"
expect_status 0
[[ "$RANK1_STATUS" == 0 ]] || fail "$LAST: rank 1 exit status $RANK1_STATUS"
expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo.*priority -100.*\(ranks on 2 hosts\)"
expect_in "$OUT" "ranks on 2 hosts: the reference's collective serves one host only"
expect_in "$OUT" "all within tolerance"

# Ranks on two hosts that share no directory meet on a Redis server (one
# started here on a free port); each prints its own report. The same RUN
# again is refused as finished.
if command -v redis-server >/dev/null 2>&1; then
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
    >"$TMP/redis.log" 2>&1 &
  REDIS=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.1
  done
  RV="redis:127.0.0.1:$PORT/run-1"
  LAST="TEPLUG_HOST_ID=a|b teplug run --ranks 2 --rank 0|1 --rendezvous $RV"
  run_on_two_hosts "$RV"
  expect_status 0
  [[ "$RANK1_STATUS" == 0 ]] || fail "$LAST: rank 1 exit status $RANK1_STATUS: $(cat "$TMP/rank1.err")"
  expect_in "$OUT" "ranks: 2 ranks (processes, rendezvous $RV), rank 0 here (--rank)"
  expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo"
  expect_in "$OUT" "all within tolerance"
  expect_in "$TMP/rank1.out" "rank 1 here (--rank)"
  expect_in "$TMP/rank1.out" "all within tolerance"
  LAST="teplug run --rank 0 --rendezvous $RV (again)"
  "$TEPLUG" run --ranks 2 --rank 0 --rendezvous "$RV" "${SMALL[@]}" >"$OUT" 2>"$ERR"
  STATUS=$?
  expect_status 1
  expect_in "$ERR" "holds a finished run"
  kill "$REDIS" 2>/dev/null
  wait "$REDIS" 2>/dev/null
  LAST="teplug run --rank 0 --rendezvous redis: (no server)"
  "$TEPLUG" run --ranks 2 --rank 0 --rendezvous "redis:127.0.0.1:$PORT/run-2" "${SMALL[@]}" \
    >"$OUT" 2>"$ERR"
  STATUS=$?
  expect_status 1
  expect_in "$ERR" "rendezvous redis:127.0.0.1:$PORT/run-2: cannot reach the Redis server"
else
  echo "SKIPPED: redis: rendezvous test: redis-server is not installed (tools/setup.sh installs it)"
fi

# Refusals name what is wrong.
LAST="teplug run --launch processes --rendezvous tcp:localhost:29500"
"$TEPLUG" run --launch processes --rendezvous tcp:localhost:29500 "${SMALL[@]}" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 2
expect_in "$ERR" "no TCP store"
LAST="OMPI_COMM_WORLD_RANK=0 teplug run (no --rendezvous)"
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 "$TEPLUG" run "${SMALL[@]}" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 2
expect_in "$ERR" "--rendezvous file:DIR is required"

# Under mpirun: rank and size from OpenMPI's environment.
if command -v mpirun >/dev/null 2>&1; then
  DIR="$TMP/mpirun"
  LAST="mpirun -np 2 teplug run --rendezvous file:DIR"
  timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$TEPLUG" run \
    --rendezvous "file:$DIR" --config "$CONFIG" "${SMALL[@]}" >"$OUT" 2>"$ERR"
  STATUS=$?
  expect_status 0
  expect_in "$OUT" "rank 0 here (OMPI_COMM_WORLD_RANK)"
  # OpenMPI may bind each rank to its own cores; those are then its budget.
  expect_match "$OUT" "TEPLUG_CPU_THREADS=[0-9]+ per rank process \((the [0-9]+ cores? the MPI launcher bound this rank to|$CORES cores? / 2 ranks on this machine)\)"
  expect_match "$OUT" "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo"
  expect_in "$OUT" "all within tolerance"
  expect_in "$DIR/rank-1.log" "rank 1 here (OMPI_COMM_WORLD_RANK)"
else
  echo "SKIPPED: mpirun test: mpirun is not installed (tools/setup.sh installs openmpi-bin)"
fi

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
