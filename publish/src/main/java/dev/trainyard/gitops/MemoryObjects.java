package dev.trainyard.gitops;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.transport.PackParser;

/**
 * Git objects kept in memory, over a repository's own: what a dry run or a preview builds (its new
 * blobs, trees and commit) is never written to the mirror in the cache, where nothing would ever
 * reference it (a 500-run preview once left ~1,500 loose objects, ~9 MB, per call), and costs no
 * file writes or deletes. Readers from {@link #over} see these objects first, then the
 * repository's. Safe for concurrent use; ids are git's (SHA-1 of the object), so a tree written
 * here is the tree a real submit writes.
 */
final class MemoryObjects {
  private final Map<ObjectId, ObjectLoader> objects = new ConcurrentHashMap<>();

  /** An inserter into this store; {@code flush} and {@code close} do nothing. */
  ObjectInserter inserter() {
    return new ObjectInserter() {
      @Override
      public ObjectId insert(int type, byte[] data, int off, int len) {
        ObjectId id = idFor(type, data, off, len);
        byte[] copy = new byte[len];
        System.arraycopy(data, off, copy, 0, len);
        objects.putIfAbsent(id, new ObjectLoader.SmallObject(type, copy));
        return id;
      }

      @Override
      public ObjectId insert(int type, long length, InputStream in) throws IOException {
        byte[] data = in.readNBytes(Math.toIntExact(length));
        if (data.length != length) {
          throw new IOException("an object of " + length + " bytes ended at " + data.length);
        }
        return insert(type, data, 0, data.length);
      }

      @Override
      public PackParser newPackParser(InputStream in) {
        throw new UnsupportedOperationException("a dry run's objects are not received as a pack");
      }

      @Override
      public ObjectReader newReader() {
        throw new UnsupportedOperationException("read through MemoryObjects.over");
      }

      @Override
      public void flush() {
        // Nothing is written anywhere.
      }

      @Override
      public void close() {
        // Nothing to release.
      }
    };
  }

  /** A reader of this store's objects, then {@code base}'s; closing it closes {@code base}. */
  ObjectReader over(ObjectReader base) {
    return new ObjectReader.Filter() {
      @Override
      protected ObjectReader delegate() {
        return base;
      }

      @Override
      public ObjectReader newReader() {
        return over(base.newReader());
      }

      @Override
      public boolean has(AnyObjectId id) throws IOException {
        return objects.containsKey(id) || base.has(id);
      }

      @Override
      public boolean has(AnyObjectId id, int typeHint) throws IOException {
        return objects.containsKey(id) || base.has(id, typeHint);
      }

      @Override
      public ObjectLoader open(AnyObjectId id) throws IOException {
        return open(id, OBJ_ANY);
      }

      @Override
      public ObjectLoader open(AnyObjectId id, int typeHint) throws IOException {
        ObjectLoader own = objects.get(id);
        return own != null ? own : base.open(id, typeHint);
      }

      @Override
      public long getObjectSize(AnyObjectId id, int typeHint) throws IOException {
        ObjectLoader own = objects.get(id);
        return own != null ? own.getSize() : base.getObjectSize(id, typeHint);
      }
    };
  }

  /** How many objects it holds. */
  int size() {
    return objects.size();
  }
}
