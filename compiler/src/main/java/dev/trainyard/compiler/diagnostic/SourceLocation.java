package dev.trainyard.compiler.diagnostic;

import java.util.Comparator;
import java.util.Objects;

/**
 * A position in a user-owned file, 1-based.
 *
 * <p>{@code line} and {@code column} are 0 when unknown (a file-level problem, e.g. "file is
 * empty").
 *
 * @param file the path as the user named it (relative where possible), never null
 * @param line 1-based line, or 0 when unknown
 * @param column 1-based column, or 0 when unknown
 */
public record SourceLocation(String file, int line, int column)
    implements Comparable<SourceLocation> {

  private static final Comparator<SourceLocation> ORDER =
      Comparator.comparing(SourceLocation::file)
          .thenComparingInt(SourceLocation::line)
          .thenComparingInt(SourceLocation::column);

  public SourceLocation {
    Objects.requireNonNull(file, "file");
    if (line < 0 || column < 0) {
      throw new IllegalArgumentException("line and column must be >= 0");
    }
  }

  /** A location naming only the file. */
  public static SourceLocation ofFile(String file) {
    return new SourceLocation(file, 0, 0);
  }

  /** {@code file:line:col}, {@code file:line} or {@code file}, as compilers print them. */
  @Override
  public String toString() {
    if (line == 0) {
      return file;
    }
    return column == 0 ? file + ":" + line : file + ":" + line + ":" + column;
  }

  @Override
  public int compareTo(SourceLocation other) {
    return ORDER.compare(this, other);
  }
}
