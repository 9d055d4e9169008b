package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedCheckpoint;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * Checkpoint combinations that cannot work, refused at the user's line (E435): every pod that
 * mounts the checkpoint volume writes or reads one shared folder, so with more than one such pod
 * the volume must be {@code ReadWriteMany}; a {@code ReadWriteOnce} volume attaches to one node
 * (core/v1 PersistentVolumeClaim access modes), so the second node's pod would wait for ever in
 * ContainerCreating ("Multi-Attach error"), and {@code ReadWriteOncePod} to one pod. Trainyard has
 * no per-rank layout: DDP saves from rank 0 and every rank must read that one file on resume. A
 * platform whose runs land on one node ({@code sameNode}, a one-node local cluster) serves them
 * with {@code ReadWriteOnce}: that mode is per node, and pods on one node share it (Kubernetes
 * "Persistent Volumes", access modes; rancher local-path-provisioner#70, the provisioner kind uses,
 * which refuses ReadWriteMany: kind#2371).
 *
 * <p>The pods that mount it: every node pod of a torch, JAX or plain run; for an MPI runtime the
 * launcher too (it finds the newest complete checkpoint once per attempt and forwards it with
 * mpirun, render {@code CheckpointParts}), so {@code runtime: mpi} with {@code nodes: 1} (a
 * launcher and one node pod) is two pods, and a runtime whose launcher runs ranks ({@code
 * launcherAsNode}) with {@code nodes: 1} is one.
 */
final class CheckpointRules {
  private CheckpointRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    if (job.checkpoint().isEmpty()) {
      return List.of();
    }
    ResolvedCheckpoint c = job.checkpoint().get();
    int pods = mountingPods(job);
    if (pods == 1
        || c.accessMode().equals("ReadWriteMany")
        || (c.sameNode() && c.accessMode().equals("ReadWriteOnce"))) {
      return List.of();
    }
    boolean mpi = job.runtime().framework().usesMpi();
    int nodes = job.topology().nodes();
    return List.of(
        Diagnostic.error(
                DiagnosticCode.CHECKPOINT_NOT_SHARED,
                job.spec().document().map().keyAt("/checkpoint"),
                "/checkpoint",
                "`checkpoint` needs a volume every "
                    + (mpi ? "pod" : "node")
                    + " can write, but namespace `"
                    + job.target().namespace()
                    + "` offers "
                    + c.accessMode()
                    + " checkpoint storage, which only one "
                    + (c.accessMode().equals("ReadWriteOncePod") ? "pod" : "node")
                    + " can mount, and this run has "
                    + (mpi ? mpiPods(job, pods) : nodes + " nodes"))
            .withHint(
                (pods > nodes
                        ? "use `nodes: 1` with a runtime whose launcher runs the ranks (`launcherAsNode`, e.g. deepspeed)"
                        : "use `nodes: 1`")
                    + ", or ask your platform team for ReadWriteMany checkpoint storage (e.g. NFS or CephFS) in "
                    + job.platform().origin()
                    + " (on a one-node cluster, ReadWriteOnce with `sameNode: true` serves every "
                    + (mpi ? "pod" : "node")
                    + ")"));
  }

  /**
   * Pods that mount the checkpoint volume: the nodes; with MPI, the launcher as well when it is a
   * pod of its own.
   */
  static int mountingPods(ResolvedJob job) {
    int nodes = job.topology().nodes();
    boolean ownLauncher =
        job.runtime().framework().usesMpi() && !job.runtime().mpi().orElseThrow().launcherAsNode();
    return ownLauncher ? nodes + 1 : nodes;
  }

  private static String mpiPods(ResolvedJob job, int pods) {
    return pods
        + " pods that mount it (MPI runtime \""
        + job.runtime().name()
        + "\": the launcher, which finds the checkpoint for every rank, and "
        + (pods - 1)
        + " node pod"
        + (pods - 1 == 1 ? "" : "s")
        + ")";
  }
}
