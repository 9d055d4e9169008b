package dev.trainyard.gitops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * A {@link Snapshot} over one git tree object, read lazily; I/O failures of the object store are
 * unchecked. Each folder's entries are read once and kept (name → object id), so reading many files
 * of a tree whose namespace folder holds 10,000 runs costs one read of that folder, not one per
 * file (a path lookup from the root would inflate and scan the whole folder every time).
 */
final class GitTreeSnapshot implements Snapshot {
  private final Repository repo;

  /**
   * Where its objects are: the repository's store, or a dry run's {@link MemoryObjects} over it.
   */
  private final Optional<MemoryObjects> unstored;

  private final Optional<String> commit;
  private final ObjectId tree;

  /**
   * Folder path ("" = root) → its entries by name; a folder name maps to its tree, a file to its
   * blob.
   */
  private final Map<String, Map<String, Entry>> listings = new ConcurrentHashMap<>();

  private record Entry(ObjectId id, boolean folder) {}

  GitTreeSnapshot(Repository repo, Optional<String> commit, ObjectId tree) {
    this(repo, Optional.empty(), commit, tree);
  }

  /** A tree whose objects may be in {@code unstored} as well as in {@code repo}. */
  GitTreeSnapshot(
      Repository repo, Optional<MemoryObjects> unstored, Optional<String> commit, ObjectId tree) {
    this.unstored = Objects.requireNonNull(unstored, "unstored");
    this.repo = Objects.requireNonNull(repo, "repo");
    this.commit = Objects.requireNonNull(commit, "commit");
    this.tree = Objects.requireNonNull(tree, "tree");
  }

  Repository repo() {
    return repo;
  }

  /** The dry run's objects this tree may use, if it is a dry run's. */
  Optional<MemoryObjects> unstored() {
    return unstored;
  }

  /** A reader of this tree's objects; the caller closes it. */
  ObjectReader newReader() {
    ObjectReader own = repo.newObjectReader();
    return unstored.isPresent() ? unstored.get().over(own) : own;
  }

  @Override
  public Optional<String> commit() {
    return commit;
  }

  ObjectId tree() {
    return tree;
  }

  @Override
  public Optional<String> read(String path) {
    return file(path)
        .map(
            id -> {
              try (ObjectReader reader = newReader()) {
                return text(reader, id);
              }
            });
  }

  @Override
  public Optional<String> blobId(String path) {
    return file(path).map(ObjectId::name);
  }

  /** The blob of the file at {@code path}, or empty when there is none (or it is a folder). */
  private Optional<ObjectId> file(String path) {
    int slash = path.lastIndexOf('/');
    Entry e = listing(slash < 0 ? "" : path.substring(0, slash)).get(path.substring(slash + 1));
    return e == null || e.folder() ? Optional.empty() : Optional.of(e.id());
  }

  @Override
  public List<String> children(String folder) {
    List<String> names = new ArrayList<>();
    listing(folder).forEach((name, e) -> names.add(name + (e.folder() ? "/" : "")));
    names.sort(String::compareTo);
    return List.copyOf(names);
  }

  @Override
  public boolean hasFolder(String folder) {
    int slash = folder.lastIndexOf('/');
    Entry e = listing(slash < 0 ? "" : folder.substring(0, slash)).get(folder.substring(slash + 1));
    return e != null && e.folder();
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    SortedMap<String, String> files = new TreeMap<>();
    Optional<ObjectId> id = treeOf(folder);
    if (id.isEmpty()) {
      return files;
    }
    try (ObjectReader reader = newReader();
        TreeWalk walk = new TreeWalk(reader)) {
      walk.addTree(id.get());
      walk.setRecursive(true);
      while (walk.next()) {
        files.put(walk.getPathString(), text(reader, walk.getObjectId(0)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The tree of {@code folder} ("" = the root), or empty when it is not a folder. */
  private Optional<ObjectId> treeOf(String folder) {
    if (folder.isEmpty()) {
      return Optional.of(tree);
    }
    int slash = folder.lastIndexOf('/');
    Entry e = listing(slash < 0 ? "" : folder.substring(0, slash)).get(folder.substring(slash + 1));
    return e != null && e.folder() ? Optional.of(e.id()) : Optional.empty();
  }

  /** The entries of {@code folder}, read once; empty when it is not a folder. */
  private Map<String, Entry> listing(String folder) {
    Map<String, Entry> known = listings.get(folder);
    if (known != null) {
      return known;
    }
    Map<String, Entry> entries = new TreeMap<>();
    treeOf(folder)
        .ifPresent(
            id -> {
              try (ObjectReader reader = newReader();
                  TreeWalk walk = new TreeWalk(reader)) {
                walk.addTree(id);
                walk.setRecursive(false);
                while (walk.next()) {
                  entries.put(
                      walk.getNameString(),
                      new Entry(walk.getObjectId(0), walk.getFileMode(0) == FileMode.TREE));
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    listings.put(folder, entries);
    return entries;
  }

  private static String text(ObjectReader reader, ObjectId blob) {
    try {
      return new String(
          reader.open(blob).getCachedBytes(Integer.MAX_VALUE), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GitTreeSnapshot g
        && g.tree.equals(tree)
        && g.commit.equals(commit)
        && g.repo == repo
        && g.unstored.equals(unstored);
  }

  @Override
  public int hashCode() {
    return tree.hashCode();
  }

  @Override
  public String toString() {
    return "GitTreeSnapshot[" + commit.orElse("unbuilt") + " tree " + tree.name() + "]";
  }
}
