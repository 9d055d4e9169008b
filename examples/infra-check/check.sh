#!/usr/bin/env bash
# Runs CHECK_COMMAND once per node and checks that the node reaches every other node of the run; prints one
# PASS/FAIL line per node:
#
#   infra-check: <node> PASS (command exit 0, reaches 2/2 peers) <the command's last output line>
#
# Started by mpirun on every rank; only each node's first rank checks (OMPI_COMM_WORLD_LOCAL_RANK 0), the others
# exit 0. "Reaches" is a TCP connection to each other node's sshd (the hostfile's names; the port of the sshd
# config Trainyard mounts next to it, or CHECK_PEER_PORT): the node-to-node path MPI and NCCL traffic needs.
# A failing node exits 1, so mpirun fails and the run fails, which its commit status and `trainyard status` show.
# Needs only bash and coreutils: it runs on the mpi runtime's image, which has no Python.
set -uo pipefail
[ "${OMPI_COMM_WORLD_LOCAL_RANK:-0}" = 0 ] || exit 0
node="$(hostname)"
limit="${CHECK_TIMEOUT_SECONDS:-600}"
port="${CHECK_PEER_PORT:-$(awk '$1 == "Port" { print $2 }' "${HOSTFILE%/*}/sshd_config")}"
output="$(timeout "$limit" bash -c "${CHECK_COMMAND:-true}" 2>&1)"
code=$?
last="$(printf '%s\n' "$output" | tail -n 1)"
[ "$code" -ne 124 ] || last="timed out after ${limit}s"
peers=0
reached=0
while read -r host _; do
  host="${host%%:*}"
  if [ -z "$host" ] || [ "${host%%.*}" = "$node" ]; then
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
echo "infra-check: $node $verdict (command exit $code, reaches $reached/$peers peers) $last"
[ "$verdict" = PASS ]
