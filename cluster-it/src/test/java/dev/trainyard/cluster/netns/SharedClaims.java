package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The claim folder that a run's attempts share, as a PersistentVolume outlives the pods that mount
 * it: each attempt starts on new hosts with a pods folder of its own, whose {@code claims} is the
 * first attempt's. Used by the checkpoint tests (CheckpointHostsIT, MpiCheckpointHostsIT).
 */
final class SharedClaims {
  private SharedClaims() {}

  /** {@code work/pods/claims}: where every attempt's claims are. */
  static Path claims(Path work) {
    return work.resolve("pods").resolve("claims");
  }

  /**
   * The pods folder for the attempt that follows {@code earlier} attempts: {@code work/pods} for
   * the first, else {@code work/pods-N} with {@code claims} linked to the first's.
   */
  static Path podsFolder(Path work, int earlier) throws IOException {
    Files.createDirectories(claims(work));
    if (earlier == 0) {
      return work.resolve("pods");
    }
    Path pods = Files.createDirectories(work.resolve("pods-" + earlier));
    Files.createSymbolicLink(pods.resolve("claims"), claims(work));
    return pods;
  }
}
