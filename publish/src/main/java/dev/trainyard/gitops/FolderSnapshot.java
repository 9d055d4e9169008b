package dev.trainyard.gitops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A GitOps working tree on disk as a {@link Snapshot} (a checkout, with what the platform team has
 * edited but not committed yet), read lazily. Only regular files count; symbolic links are skipped
 * (a link may point out of the checkout), and so is the {@code .git} folder at the root. A path
 * that would leave the root ({@code ..}) reads as absent.
 *
 * @param root the checkout's top folder
 */
public record FolderSnapshot(Path root) implements Snapshot {
  public FolderSnapshot {
    root = root.toAbsolutePath().normalize();
  }

  @Override
  public Optional<String> commit() {
    return Optional.empty();
  }

  /**
   * @throws UncheckedIOException when the file exists but cannot be read
   */
  @Override
  public Optional<String> read(String path) {
    Optional<Path> file =
        resolve(path).filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS));
    if (file.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new String(Files.readAllBytes(file.get()), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file.get() + ": " + TreeWriter.why(e), e);
    }
  }

  @Override
  public List<String> children(String folder) {
    Optional<Path> dir =
        resolve(folder).filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS));
    List<String> names = new ArrayList<>();
    if (dir.isEmpty()) {
      return names;
    }
    try (Stream<Path> entries = Files.list(dir.get())) {
      for (Path p : entries.toList()) {
        String name = p.getFileName().toString();
        if (folder.isEmpty() && name.equals(".git")) {
          continue;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          names.add(name + "/");
        } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          names.add(name);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir.get() + ": " + TreeWriter.why(e), e);
    }
    names.sort(null);
    return names;
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    SortedMap<String, String> out = new TreeMap<>();
    collect(folder, "", out);
    return out;
  }

  private void collect(String folder, String prefix, SortedMap<String, String> out) {
    for (String child : children(folder)) {
      String path = folder.isEmpty() ? child : folder + "/" + child;
      if (child.endsWith("/")) {
        String name = child.substring(0, child.length() - 1);
        collect(path.substring(0, path.length() - 1), prefix + name + "/", out);
      } else {
        read(path).ifPresent(text -> out.put(prefix + child, text));
      }
    }
  }

  private Optional<Path> resolve(String path) {
    Path p = root.resolve(path).normalize();
    return p.startsWith(root) ? Optional.of(p) : Optional.empty();
  }
}
