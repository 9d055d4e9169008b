#!/usr/bin/env bash
# Runs CHECK_COMMAND once per node and checks that the node reaches every other node of the run; prints one
# PASS/FAIL line per node:
#
#   infra-check: <node> PASS (command exit 0, reaches 2/2 peers on port 2222) <the command's last output line>
#
# Started by mpirun on every rank; only each node's first rank checks (OMPI_COMM_WORLD_LOCAL_RANK 0), the others
# exit 0. "Reaches" is a TCP connection to each other node's sshd (the hostfile's names; the port of the sshd
# config Trainyard mounts next to it, or CHECK_PEER_PORT): the node-to-node path MPI and NCCL traffic needs.
# A failing node exits 1, so mpirun fails and the run fails, which its commit status and `trainyard status` show.
# Needs bash and coreutils' timeout only: it runs on the mpi runtime's image, which has no Python.
set -uo pipefail
[ "${OMPI_COMM_WORLD_LOCAL_RANK:-0}" = 0 ] || exit 0
node="$HOSTNAME"
# mpirun stops every rank as soon as one exits non-zero, so a failing node waits CHECK_SETTLE_SECONDS (default 5)
# before it exits: the other nodes' checks that end about as soon still print their lines.
settle_and_fail() {
  sleep "${CHECK_SETTLE_SECONDS:-5}"
  exit 1
}
fail() {
  echo "infra-check: $node FAIL ($1)"
  settle_and_fail
}
limit="${CHECK_TIMEOUT_SECONDS:-600}"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || fail "CHECK_TIMEOUT_SECONDS must be a whole number of seconds above 0, got '$limit'"
[ -r "${HOSTFILE:-}" ] || fail "no readable hostfile at '${HOSTFILE:-}' (HOSTFILE)"
port="${CHECK_PEER_PORT:-}"
if [ -z "$port" ] && [ -r "${HOSTFILE%/*}/sshd_config" ]; then
  while read -r key value _; do
    if [ "$key" = Port ]; then
      port="$value"
    fi
  done < "${HOSTFILE%/*}/sshd_config"
fi
[[ "$port" =~ ^[0-9]+$ ]] || fail "no sshd port: no 'Port N' line in ${HOSTFILE%/*}/sshd_config and no CHECK_PEER_PORT"
# The output goes to a file, not a pipe: a background process the command leaves behind keeps a pipe open, and
# the check would wait for it. -k: a command that ignores SIGTERM is killed 5 s later.
out="$(mktemp)"
started=$SECONDS
timeout -k 5 "$limit" bash -c "${CHECK_COMMAND:-true}" > "$out" 2>&1 < /dev/null
code=$?
last="$(tail -n 1 "$out")"
rm -f "$out"
# 124: timed out; 137 after the limit: timed out and killed (137 before it is another SIGKILL, e.g. the OOM killer).
if [ "$code" -eq 124 ] || { [ "$code" -eq 137 ] && [ $((SECONDS - started)) -ge "$limit" ]; }; then
  last="timed out after ${limit}s"
fi
peers=0
reached=0
while read -r host _ || [ -n "${host:-}" ]; do
  host="${host%%:*}"
  if [ -z "$host" ] || [ "${host:0:1}" = "#" ] || [ "${host%%.*}" = "$node" ]; then
    continue
  fi
  peers=$((peers + 1))
  if timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$host" "$port" 2>/dev/null; then
    reached=$((reached + 1))
  fi
done < "$HOSTFILE"
verdict=PASS
if [ "$code" -ne 0 ] || [ "$reached" -ne "$peers" ]; then
  verdict=FAIL
fi
echo "infra-check: $node $verdict (command exit $code, reaches $reached/$peers peers on port $port) $last"
[ "$verdict" = PASS ] || settle_and_fail
