package dev.trainyard.gitops;

import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/** The tree of an empty repository: no commit, no files. */
public record EmptySnapshot() implements Snapshot {
  @Override
  public Optional<String> commit() {
    return Optional.empty();
  }

  @Override
  public Optional<String> read(String path) {
    return Optional.empty();
  }

  @Override
  public List<String> children(String folder) {
    return List.of();
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    return new TreeMap<>();
  }
}
