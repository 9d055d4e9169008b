package dev.trainyard.gitops;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One change to a GitOps tree, applied in order when a commit is built. Paths use {@code /},
 * relative to the root.
 */
public sealed interface TreeEdit {
  /** The path the edit touches. */
  String path();

  /**
   * Replaces {@code folder} whole with {@code files} (path relative to the folder → text): nothing
   * of the old folder survives.
   */
  record ReplaceFolder(String path, SortedMap<String, String> files) implements TreeEdit {
    public ReplaceFolder {
      files = Collections.unmodifiableSortedMap(new TreeMap<>(files));
    }
  }

  /** Removes {@code folder} and everything under it. */
  record DeleteFolder(String path) implements TreeEdit {}

  /** Writes one file, replacing it if present. */
  record WriteFile(String path, String text) implements TreeEdit {}
}
