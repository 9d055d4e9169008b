package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedCheckpoint;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * Checkpoint combinations that cannot work, refused at the user's line (E435): every rank host of a
 * multi-node run writes one shared folder, so its volume must be {@code ReadWriteMany}; a {@code
 * ReadWriteOnce} volume attaches to one node (core/v1 PersistentVolumeClaim access modes), so the
 * second node's pod would wait for ever in ContainerCreating ("Multi-Attach error"), and {@code
 * ReadWriteOncePod} to one pod. Trainyard has no per-rank layout: DDP saves from rank 0 and every
 * rank must read that one file on resume. A platform whose runs land on one node ({@code sameNode},
 * a one-node local cluster) serves them with {@code ReadWriteOnce}: that mode is per node, and pods
 * on one node share it (Kubernetes "Persistent Volumes", access modes; rancher
 * local-path-provisioner#70, the provisioner kind uses, which refuses ReadWriteMany: kind#2371).
 */
final class CheckpointRules {
  private CheckpointRules() {}

  /**
   * MPI runtimes start ranks through {@code mpirun} over ssh from a launcher, which would have to
   * find the checkpoint and forward it; not built yet.
   */
  private static Diagnostic mpi(ResolvedJob job) {
    return Diagnostic.error(
            DiagnosticCode.CHECKPOINT_RUNTIME_UNSUPPORTED,
            job.spec().document().map().keyAt("/checkpoint"),
            "/checkpoint",
            "`checkpoint` is not supported yet for runtime \""
                + job.runtime().name()
                + "\" (MPI): its ranks start through mpirun, which does not pass the checkpoint on")
        .withHint(
            "use a torch, jax or plain runtime for a checkpointed run, or keep checkpoints on a volume of your own (`volumes:`)");
  }

  static List<Diagnostic> check(ResolvedJob job) {
    if (job.checkpoint().isEmpty()) {
      return List.of();
    }
    ResolvedCheckpoint c = job.checkpoint().get();
    if (job.runtime().framework().usesMpi()) {
      return List.of(mpi(job));
    }
    int nodes = job.topology().nodes();
    if (nodes == 1
        || c.accessMode().equals("ReadWriteMany")
        || (c.sameNode() && c.accessMode().equals("ReadWriteOnce"))) {
      return List.of();
    }
    return List.of(
        Diagnostic.error(
                DiagnosticCode.CHECKPOINT_NOT_SHARED,
                job.spec().document().map().keyAt("/checkpoint"),
                "/checkpoint",
                "`checkpoint` needs a volume every node can write, but namespace `"
                    + job.target().namespace()
                    + "` offers "
                    + c.accessMode()
                    + " checkpoint storage, which only one "
                    + (c.accessMode().equals("ReadWriteOncePod") ? "pod" : "node")
                    + " can mount, and this run has "
                    + nodes
                    + " nodes")
            .withHint(
                "use `nodes: 1`, or ask your platform team for ReadWriteMany checkpoint storage (e.g. NFS or CephFS) in "
                    + job.platform().origin()
                    + " (on a one-node cluster, ReadWriteOnce with `sameNode: true` serves every node)"));
  }
}
