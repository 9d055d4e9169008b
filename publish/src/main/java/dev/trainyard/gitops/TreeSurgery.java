package dev.trainyard.gitops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;

/**
 * Applies {@link TreeEdit}s to a git tree by rewriting only the trees on the edited paths: a submit
 * into a repository of 10,000 runs reads and writes the root, {@code clusters/}, the cluster's and
 * the namespace's trees and the new run's, never the other 9,999 runs (an index of the whole tree
 * would cost O(files)). Empty folders vanish, as in git.
 */
final class TreeSurgery {
  private final ObjectReader reader;
  private final ObjectInserter inserter;

  TreeSurgery(ObjectReader reader, ObjectInserter inserter) {
    this.reader = reader;
    this.inserter = inserter;
  }

  /**
   * The new root tree's id; {@code base} is the old root tree, or empty for an empty repository.
   */
  ObjectId apply(Optional<ObjectId> base, List<TreeEdit> edits) throws IOException {
    Folder root = new Folder(base.orElse(null));
    for (TreeEdit edit : edits) {
      String[] parts = edit.path().split("/");
      Folder parent = root.descend(Arrays.copyOf(parts, parts.length - 1), true);
      String name = parts[parts.length - 1];
      if (edit instanceof TreeEdit.ReplaceFolder r) {
        Folder fresh = new Folder(null);
        for (Map.Entry<String, String> f : r.files().entrySet()) {
          String[] p = f.getKey().split("/");
          fresh
              .descend(Arrays.copyOf(p, p.length - 1), true)
              .put(p[p.length - 1], blob(f.getValue()));
        }
        parent.entries().put(name, new Entry(FileMode.TREE, null, fresh));
      } else if (edit instanceof TreeEdit.DeleteFolder) {
        parent.entries().remove(name);
      } else if (edit instanceof TreeEdit.WriteFile w) {
        parent.put(name, blob(w.text()));
      }
    }
    Optional<ObjectId> tree = root.write();
    return tree.isPresent() ? tree.get() : inserter.insert(new TreeFormatter());
  }

  private Entry blob(String text) throws IOException {
    return new Entry(
        FileMode.REGULAR_FILE,
        inserter.insert(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8)),
        null);
  }

  /** A tree entry: a blob or unchanged subtree by id, or a subtree being edited. */
  private record Entry(FileMode mode, ObjectId id, Folder folder) {}

  /** A folder, read from its tree only when an edit goes into it. */
  private final class Folder {
    private final ObjectId original;
    private TreeMap<String, Entry> entries;

    Folder(ObjectId original) {
      this.original = original;
    }

    TreeMap<String, Entry> entries() throws IOException {
      if (entries == null) {
        entries = new TreeMap<>();
        if (original != null) {
          CanonicalTreeParser p = new CanonicalTreeParser(null, reader, original);
          for (; !p.eof(); p.next()) {
            entries.put(
                p.getEntryPathString(),
                new Entry(p.getEntryFileMode(), p.getEntryObjectId(), null));
          }
        }
      }
      return entries;
    }

    void put(String name, Entry entry) throws IOException {
      entries().put(name, entry);
    }

    /** The sub-folder at {@code path}, made (replacing a file of that name) when {@code create}. */
    Folder descend(String[] path, boolean create) throws IOException {
      Folder at = this;
      for (String name : path) {
        Entry e = at.entries().get(name);
        if (e == null || e.mode() != FileMode.TREE) {
          e = new Entry(FileMode.TREE, null, new Folder(null));
          at.entries().put(name, e);
        } else if (e.folder() == null) {
          e = new Entry(FileMode.TREE, null, new Folder(e.id()));
          at.entries().put(name, e);
        }
        at = e.folder();
      }
      return at;
    }

    /**
     * Writes this folder if it was edited; empty when it holds nothing (git keeps no empty trees).
     */
    Optional<ObjectId> write() throws IOException {
      if (entries == null) {
        return Optional.ofNullable(original);
      }
      TreeMap<String, Entry> written = new TreeMap<>(TreeSurgery::gitOrder);
      for (Map.Entry<String, Entry> e : entries.entrySet()) {
        Entry entry = e.getValue();
        Optional<ObjectId> id =
            entry.folder() == null ? Optional.of(entry.id()) : entry.folder().write();
        id.ifPresent(
            i ->
                written.put(
                    e.getKey() + (entry.mode() == FileMode.TREE ? "/" : ""),
                    new Entry(entry.mode(), i, null)));
      }
      if (written.isEmpty()) {
        return Optional.empty();
      }
      TreeFormatter f = new TreeFormatter();
      written.forEach(
          (key, entry) ->
              f.append(
                  key.endsWith("/") ? key.substring(0, key.length() - 1) : key,
                  entry.mode(),
                  entry.id()));
      return Optional.of(inserter.insert(f));
    }
  }

  /**
   * Git's tree order: by bytes, a tree's name compared as if it ended in {@code /} (keys here carry
   * that slash).
   */
  private static int gitOrder(String a, String b) {
    return Arrays.compareUnsigned(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
