package dev.trainyard.gitops;

import java.util.List;
import java.util.Optional;
import java.util.SortedMap;

/**
 * A {@link Snapshot} read by several compile threads at once ({@link CompileWorkers}): each read
 * holds the snapshot's lock, as a Git snapshot reads through one JGit object reader, which is not
 * thread-safe. The compiles read it rarely (an MPI run's existing Secret, a rerun's run folders).
 */
record LockedSnapshot(Snapshot base) implements Snapshot {
  @Override
  public Optional<String> commit() {
    synchronized (base) {
      return base.commit();
    }
  }

  @Override
  public Optional<String> read(String path) {
    synchronized (base) {
      return base.read(path);
    }
  }

  @Override
  public Optional<String> blobId(String path) {
    synchronized (base) {
      return base.blobId(path);
    }
  }

  @Override
  public List<String> children(String folder) {
    synchronized (base) {
      return base.children(folder);
    }
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    synchronized (base) {
      return base.folder(folder);
    }
  }

  @Override
  public boolean hasFolder(String folder) {
    synchronized (base) {
      return base.hasFolder(folder);
    }
  }
}
