package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dry run's objects in memory, read before a real repository's. */
class MemoryObjectsTest {
  @TempDir Path temp;

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName(
      "an object inserted in memory has git's id, is read back (also through a stream insert) and never reaches the repository; the repository's objects read through it too")
  void overlay() throws Exception {
    try (Repository repo =
        new FileRepositoryBuilder().setGitDir(temp.resolve("r.git").toFile()).setBare().build()) {
      repo.create(true);
      ObjectId stored;
      try (ObjectInserter real = repo.newObjectInserter()) {
        stored = real.insert(Constants.OBJ_BLOB, bytes("stored\n"));
        real.flush();
      }
      MemoryObjects memory = new MemoryObjects();
      ObjectId kept;
      ObjectId streamed;
      try (ObjectInserter in = memory.inserter()) {
        kept = in.insert(Constants.OBJ_BLOB, bytes("xkept\n"), 1, 5);
        streamed = in.insert(Constants.OBJ_BLOB, 9, new ByteArrayInputStream(bytes("streamed\n")));
        assertEquals(kept, in.insert(Constants.OBJ_BLOB, bytes("kept\n")), "same bytes, same id");
        in.flush();
        assertThrows(UnsupportedOperationException.class, in::newReader);
        assertThrows(
            UnsupportedOperationException.class,
            () -> in.newPackParser(new ByteArrayInputStream(new byte[0])));
        IOException short_ =
            assertThrows(
                IOException.class,
                () -> in.insert(Constants.OBJ_BLOB, 10, new ByteArrayInputStream(bytes("abc"))));
        assertTrue(short_.getMessage().contains("10 bytes ended at 3"), short_.getMessage());
      }
      assertEquals(2, memory.size());
      assertEquals(new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, bytes("kept\n")), kept);
      try (ObjectReader r = memory.over(repo.newObjectReader());
          ObjectReader again = r.newReader()) {
        for (ObjectReader reader : new ObjectReader[] {r, again}) {
          assertArrayEquals(bytes("kept\n"), reader.open(kept).getCachedBytes());
          assertArrayEquals(
              bytes("kept\n"), reader.open(kept, Constants.OBJ_BLOB).getCachedBytes());
          assertArrayEquals(bytes("streamed\n"), reader.open(streamed).getCachedBytes());
          assertArrayEquals(bytes("stored\n"), reader.open(stored).getCachedBytes());
          assertTrue(reader.has(kept));
          assertTrue(reader.has(kept, Constants.OBJ_BLOB));
          assertTrue(reader.has(stored));
          assertTrue(reader.has(stored, Constants.OBJ_BLOB));
          assertEquals(5, reader.getObjectSize(kept, Constants.OBJ_BLOB));
          assertEquals(7, reader.getObjectSize(stored, Constants.OBJ_BLOB));
        }
        ObjectId nowhere = ObjectId.fromString("0123456789012345678901234567890123456789");
        assertFalse(r.has(nowhere));
        assertFalse(r.has(nowhere, Constants.OBJ_BLOB));
        assertThrows(MissingObjectException.class, () -> r.open(nowhere));
      }
      assertFalse(repo.getObjectDatabase().has(kept), "a memory object reached the repository");
    }
  }
}
