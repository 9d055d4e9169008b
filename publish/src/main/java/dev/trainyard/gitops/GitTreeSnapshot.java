package dev.trainyard.gitops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.TreeWalk;

/** A {@link Snapshot} over one git tree object, read lazily; I/O failures of the object store are unchecked. */
record GitTreeSnapshot(Repository repo, Optional<String> commit, ObjectId tree) implements Snapshot {

  @Override
  public Optional<String> read(String path) {
    try (TreeWalk walk = TreeWalk.forPath(repo, path, tree)) {
      if (walk == null || walk.getFileMode(0).getObjectType() != org.eclipse.jgit.lib.Constants.OBJ_BLOB) {
        return Optional.empty();
      }
      return Optional.of(new String(repo.open(walk.getObjectId(0)).getCachedBytes(Integer.MAX_VALUE), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public List<String> children(String folder) {
    List<String> names = new ArrayList<>();
    try (TreeWalk walk = walkOf(folder)) {
      if (walk == null) {
        return List.of();
      }
      while (walk.next()) {
        names.add(walk.getNameString() + (walk.getFileMode(0) == FileMode.TREE ? "/" : ""));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    names.sort(String::compareTo);
    return List.copyOf(names);
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    SortedMap<String, String> files = new TreeMap<>();
    try (TreeWalk walk = walkOf(folder)) {
      if (walk == null) {
        return files;
      }
      walk.setRecursive(true);
      while (walk.next()) {
        files.put(walk.getPathString(), new String(repo.open(walk.getObjectId(0)).getCachedBytes(Integer.MAX_VALUE), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** A walk over the entries of {@code folder} ("" = the root), or null when it is not a folder. */
  private TreeWalk walkOf(String folder) throws IOException {
    ObjectId id = tree;
    if (!folder.isEmpty()) {
      try (TreeWalk find = TreeWalk.forPath(repo, folder, tree)) {
        if (find == null || find.getFileMode(0) != FileMode.TREE) {
          return null;
        }
        id = find.getObjectId(0);
      }
    }
    TreeWalk walk = new TreeWalk(repo);
    walk.addTree(id);
    walk.setRecursive(false);
    return walk;
  }
}
