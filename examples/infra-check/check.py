"""Runs CHECK_COMMAND once per node and an MPI allreduce over all ranks; prints one PASS/FAIL line per node.

Started by mpirun on every rank (one rank per node by default). The allreduce stands in for NCCL's
all_reduce_perf on CPU-only nodes: every rank contributes 1, so the sum must equal the number of ranks.
Rank 0 gathers each node's result and prints

    infra-check: <node> PASS (command exit 0, allreduce 3/3)

for every node, then a summary; the job fails (exit 1) when any node fails, so the run's status says it.
"""
import os
import socket
import subprocess

from mpi4py import MPI

TIMEOUT_SECONDS = int(os.environ.get("CHECK_TIMEOUT_SECONDS", "600"))


def run_check(command):
    """The command's exit code and its last output line (124 when it ran out of time)."""
    try:
        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {TIMEOUT_SECONDS}s"
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def main():
    comm = MPI.COMM_WORLD
    node = socket.gethostname()
    local_rank = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    code, last = run_check(os.environ.get("CHECK_COMMAND", "true")) if local_rank == 0 else (0, "")
    total = comm.allreduce(1, op=MPI.SUM)
    results = comm.gather((node, local_rank, code, last, total), root=0)
    if comm.Get_rank() != 0:
        return 0
    size = comm.Get_size()
    failed = 0
    for node, local_rank, code, last, seen in sorted(results):
        if local_rank != 0:
            continue
        ok = code == 0 and seen == size
        failed += 0 if ok else 1
        verdict = "PASS" if ok else "FAIL"
        print(f"infra-check: {node} {verdict} (command exit {code}, allreduce {seen}/{size}) {last}", flush=True)
    nodes = len({r[0] for r in results})
    print(f"infra-check: {nodes - failed} of {nodes} nodes passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
