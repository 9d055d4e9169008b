package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import dev.trainyard.compiler.source.SourceMap;
import dev.trainyard.compiler.units.Quantities;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings that compile but would not do what the user expects: {@code procsPerNode} on runtimes
 * that start one process per node (JAX uses every local device from one process; plain runs one
 * command), a {@code /dev/shm} larger than the memory limit it is charged against, and an {@code
 * image} not pinned by digest (DESIGN: reproducible runs pin the image digest).
 */
final class TopologyRules {
  private TopologyRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    SourceMap map = job.spec().document().map();
    Framework f = job.runtime().framework();
    // Resolve gives JAX and plain 1 process per node unless procsPerNode names a count, so != 1
    // means the user asked.
    if ((f == Framework.JAX || f == Framework.PLAIN) && job.topology().procsPerNode() != 1) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.TOO_MANY_PROCESSES,
                  map.at("/procsPerNode"),
                  "/procsPerNode",
                  "runtime "
                      + job.runtime().name()
                      + " starts one process per node, so `procsPerNode` cannot be "
                      + job.topology().procsPerNode())
              .withHint(
                  f == Framework.JAX
                      ? "JAX uses every GPU of a node from one process; remove `procsPerNode`"
                      : "start your own processes from `run`, or use the torch or mpi runtime"));
    }
    var shm = Quantities.parse(job.resources().shm());
    var memory = Quantities.parse(job.resources().memory());
    if (shm.isPresent() && memory.isPresent() && shm.get().compareTo(memory.get()) > 0) {
      out.add(
          Diagnostic.warning(
                  DiagnosticCode.SHM_EXCEEDS_MEMORY,
                  map.at("/resources/shm"),
                  "/resources/shm",
                  "`resources.shm` ("
                      + job.resources().shm()
                      + ") is larger than `resources.memory` ("
                      + job.resources().memory()
                      + "); /dev/shm is memory-backed and counts against the memory limit")
              .withHint("raise `memory` or lower `shm`; a full /dev/shm gets the pod OOM-killed"));
    }
    if (job.spec().image().isPresent() && !job.spec().image().get().contains("@sha256:")) {
      out.add(
          Diagnostic.warning(
                  DiagnosticCode.IMAGE_NOT_PINNED,
                  map.at("/image"),
                  "/image",
                  "`image` \""
                      + job.spec().image().get()
                      + "\" is not pinned by digest, so a re-run may get other code")
              .withHint(
                  "write it as name@sha256:<digest> (`docker buildx imagetools inspect` or `crane digest` print it)"));
    }
    return out;
  }
}
