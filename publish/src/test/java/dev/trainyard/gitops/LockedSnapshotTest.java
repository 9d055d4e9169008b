package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link LockedSnapshot} answers every read as the snapshot it locks. */
class LockedSnapshotTest {
  @Test
  @DisplayName("commit, read, children, folder and hasFolder are the locked snapshot's answers")
  void delegates() {
    Snapshot base =
        new Snapshot() {
          @Override
          public Optional<String> commit() {
            return Optional.of("c0ffee");
          }

          @Override
          public Optional<String> read(String path) {
            return path.equals("a/b.yaml") ? Optional.of("x: 1\n") : Optional.empty();
          }

          @Override
          public List<String> children(String folder) {
            return folder.equals("a") ? List.of("b.yaml", "c/") : List.of();
          }

          @Override
          public SortedMap<String, String> folder(String folder) {
            return new java.util.TreeMap<>(Map.of("b.yaml", "x: 1\n"));
          }
        };
    LockedSnapshot locked = new LockedSnapshot(base);
    assertEquals(Optional.of("c0ffee"), locked.commit());
    assertEquals(Optional.of("x: 1\n"), locked.read("a/b.yaml"));
    assertEquals(Optional.empty(), locked.read("nope"));
    assertEquals(List.of("b.yaml", "c/"), locked.children("a"));
    assertEquals(Map.of("b.yaml", "x: 1\n"), locked.folder("a"));
    assertTrue(locked.hasFolder("a/c"));
    assertFalse(locked.hasFolder("a/b.yaml"));
  }
}
