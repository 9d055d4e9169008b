package dev.trainyard.compiler.manifest;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The files one compile writes, by path relative to the GitOps repo root ({@code /} separators),
 * with their exact bytes as text (UTF-8, LF). Pure data: writing it is the edge's job.
 *
 * @param files path → content, sorted by path
 * @param ownedFolders folders this compile replaces whole (the run folder and the queue folders);
 *     files of other runs are never touched
 */
public record OutputTree(SortedMap<String, String> files, List<String> ownedFolders) {
  public OutputTree {
    files = Collections.unmodifiableSortedMap(new TreeMap<>(files));
    ownedFolders = List.copyOf(ownedFolders);
  }
}
