#!/bin/bash
# Two ranks of `teplug run` on two "hosts": network namespaces joined by a
# veth pair (10.77.R.1 and 10.77.R.2), so the cpu provider's Gloo collective
# sends its bytes across a network interface, not loopback. The ranks meet in
# a rendezvous directory both can see (as hosts would on a shared file
# system). Needs root, `unshare`, `nsenter` and `ip`; skipped with the reason otherwise.
set -u
TEPLUG="$1"
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG TEPLUG_CPU_THREADS \
  TEPLUG_LOCAL_RANKS TEPLUG_GLOO_IFNAME TEPLUG_GLOO_HOSTNAME OMPI_COMM_WORLD_RANK \
  OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
TMP="${TEST_TMPDIR:-/tmp}/netns_cli"
rm -rf "$TMP" && mkdir -p "$TMP"
skip() {
  echo "SKIPPED: two-namespace test: $*"
  exit 0
}

[[ "$(id -u)" == 0 ]] || skip "needs root to make network namespaces (running as uid $(id -u))"
command -v ip >/dev/null 2>&1 || skip "the ip command (iproute2) is not installed"
command -v unshare >/dev/null 2>&1 || skip "the unshare command (util-linux) is not installed"
command -v nsenter >/dev/null 2>&1 || skip "the nsenter command (util-linux) is not installed"
PROBE_ERR=$(unshare --net true 2>&1) || skip "cannot make a network namespace: $PROBE_ERR"

CONFIG="$TMP/gloo.textproto"
echo 'rules { name: "ranks-across-hosts" match { interfaces: "collective" } prefer: "cpu" }' \
  >"$CONFIG"
DIR="$TMP/rendezvous"
SMALL=(--dtype fp32 --batch 1 --seq 16 --heads 2 --head-dim 16 --no-discovery --config "$CONFIG")
# The subnet from the pid keeps parallel runs apart; the namespaces are the
# rank processes' own (`unshare --net`, no /run/netns needed) and vanish
# with them.
NET="10.77.$(($$ % 250))"
VETH=(va$$ vb$$)

# start_rank R: rank R in a new network namespace; once $TMP/go.R exists it
# gives its end of the veth pair the address $NET.(R+1), binds Gloo to it,
# and runs. Its pid in RANK_PID[R].
declare -a RANK_PID
start_rank() {
  local r=$1 dev=${VETH[$1]}
  unshare --net bash -c '
    while [[ ! -e "$1/go.$2" ]]; do sleep 0.05; done
    ip addr add "$3/24" dev "$4" && ip link set "$4" up && ip link set lo up || exit 97
    echo ready >"$1/ready.$2"
    while [[ ! -e "$1/ready.0" || ! -e "$1/ready.1" ]]; do sleep 0.05; done
    dir=$1 rank=$2 dev=$4
    shift 4
    "$@"
    status=$?
    # What arrived over its end of the veth pair (netlink sees this namespace).
    ip -s link show dev "$dev" | awk "/RX:/ { getline; print \$1 }" >"$dir/rx_bytes.$rank"
    # Both ends of a veth pair go when either namespace does: stay until the
    # other rank has read its own end (at most 30 s).
    echo done >"$dir/done.$rank"
    for _ in $(seq 600); do [[ -e "$dir/done.0" && -e "$dir/done.1" ]] && break; sleep 0.05; done
    exit $status' rank "$TMP" "$r" "$NET.$((r + 1))" "$dev" \
    env TEPLUG_GLOO_IFNAME="$dev" timeout 120 "$TEPLUG" run --ranks 2 --rank "$r" \
    --rendezvous "file:$DIR" "${SMALL[@]}" >"$TMP/rank$r.out" 2>"$TMP/rank$r.err" &
  RANK_PID[$r]=$!
}
start_rank 0
start_rank 1
sleep 0.2  # let unshare make the namespaces before the veth ends move in
# Made inside rank 0's namespace, the peer end moved into rank 1's: both
# namespaces belong to this test (also inside a sandbox whose own network
# namespace it may not change).
if ! SETUP_ERR=$(nsenter --net="/proc/${RANK_PID[0]}/ns/net" ip link add "${VETH[0]}" type veth \
  peer name "${VETH[1]}" netns "${RANK_PID[1]}" 2>&1); then
  kill "${RANK_PID[0]}" "${RANK_PID[1]}" 2>/dev/null
  skip "cannot join two network namespaces with a veth pair: $SETUP_ERR"
fi
touch "$TMP/go.0" "$TMP/go.1"
wait "${RANK_PID[0]}"
STATUS=$?
wait "${RANK_PID[1]}"
RANK1_STATUS=$?
OUT="$TMP/rank0.out"
ERR="$TMP/rank0.err"
RX_BYTES=$(cat "$TMP/rx_bytes.0" 2>/dev/null || echo 0)

FAILURES=0
fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}
[[ "$STATUS" == 0 ]] || fail "rank 0 exit status $STATUS"
[[ "$RANK1_STATUS" == 0 ]] || fail "rank 1 exit status $RANK1_STATUS"
grep -qE "all_reduce sum dw_qkv \(fp32, 2 ranks\).*cpu/gloo.*OK" "$OUT" ||
  fail "rank 0's table lacks a passing Gloo all-reduce of dw_qkv"
grep -qF "all within tolerance" "$OUT" || fail "rank 0's table is not all within tolerance"
# dw_qkv alone is 3*32*32 fp32 values = 12 KiB from the peer, several times over.
[[ "$RX_BYTES" -gt 12288 ]] || fail "only $RX_BYTES bytes arrived over the veth pair"
if [[ "$FAILURES" != 0 ]]; then
  echo "--- rank 0 stdout"; cat "$OUT"; echo "--- rank 0 stderr"; cat "$ERR"
  echo "--- rank 1 log"; cat "$DIR/rank-1.log" 2>/dev/null; cat "$TMP/rank1.err" "$TMP/rank1.out"
  exit 1
fi
echo "all checks passed ($RX_BYTES bytes arrived at rank 0 over the veth pair)"
