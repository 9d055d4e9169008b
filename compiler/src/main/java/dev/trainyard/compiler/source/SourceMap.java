package dev.trainyard.compiler.source;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.Map;
import java.util.Optional;

/**
 * Where each value of a parsed YAML document stands in its file, by JSON pointer ({@code
 * /resources/gpus}, {@code /env/HF_MODEL}, {@code /volumes/0/claim}; the root is {@code ""}).
 *
 * <p>Lookups never fail: an unknown pointer falls back to its nearest ancestor that has a location,
 * and finally to the file itself, so a diagnostic always has somewhere to point.
 */
public final class SourceMap {
  private final String file;
  private final Map<String, SourceLocation> values;
  private final Map<String, SourceLocation> keys;
  private final Map<String, String> scalarTexts;

  /**
   * @param file the display path of the file
   * @param values pointer → location of the value's first character
   * @param keys pointer → location of the mapping key that introduces the value (absent for list
   *     items)
   */
  public SourceMap(
      String file, Map<String, SourceLocation> values, Map<String, SourceLocation> keys) {
    this(file, values, keys, Map.of());
  }

  /**
   * @param file the display path of the file
   * @param values pointer → location of the value's first character
   * @param keys pointer → location of the mapping key that introduces the value (absent for list
   *     items)
   * @param scalarTexts pointer → the text as written of each number, boolean and null scalar
   *     ({@code 1.0}, {@code yes}, {@code ~}), so later stages can pass {@code env: {X: 1.0}} on as
   *     {@code "1.0"}
   */
  public SourceMap(
      String file,
      Map<String, SourceLocation> values,
      Map<String, SourceLocation> keys,
      Map<String, String> scalarTexts) {
    this.file = file;
    this.values = Map.copyOf(values);
    this.keys = Map.copyOf(keys);
    this.scalarTexts = Map.copyOf(scalarTexts);
  }

  /** A map with no positions: every lookup answers the file itself. */
  public static SourceMap empty(String file) {
    return new SourceMap(file, Map.of(), Map.of());
  }

  public String file() {
    return file;
  }

  /** Location of the value at {@code pointer}, or of its nearest located ancestor. */
  public SourceLocation at(String pointer) {
    for (String p = pointer; ; p = parent(p)) {
      SourceLocation found = values.get(p);
      if (found != null) {
        return found;
      }
      if (p.isEmpty()) {
        return SourceLocation.ofFile(file);
      }
    }
  }

  /**
   * Location of the key naming the member at {@code pointer}; the value's location when there is no
   * key.
   */
  public SourceLocation keyAt(String pointer) {
    SourceLocation key = keys.get(pointer);
    return key != null ? key : at(pointer);
  }

  /**
   * The text of the number, boolean or null scalar at {@code pointer} exactly as the user wrote it
   * ({@code 1.0} stays {@code "1.0"}, {@code 0x1F} stays {@code "0x1F"}); empty for strings,
   * mappings, lists and unknown pointers.
   */
  public Optional<String> scalarText(String pointer) {
    return Optional.ofNullable(scalarTexts.get(pointer));
  }

  /**
   * The pointer of member {@code name} under {@code parent}, escaped per RFC 6901 ({@code ~} →
   * {@code ~0}, {@code /} → {@code ~1}): {@code child("/env", "A/B")} is {@code /env/A~1B}.
   */
  public static String child(String parent, String name) {
    return parent + "/" + name.replace("~", "~0").replace("/", "~1");
  }

  /**
   * The pointer of list item {@code index} under {@code parent}: {@code child("/volumes", 0)} is
   * {@code /volumes/0}.
   */
  public static String child(String parent, int index) {
    return parent + "/" + index;
  }

  /**
   * The last member name or index of {@code pointer}, unescaped (the inverse of {@link
   * #child(String, String)}): {@code leaf("/env/A~1B")} is {@code A/B}, {@code leaf("/volumes/0")}
   * is {@code 0}.
   */
  public static String leaf(String pointer) {
    return pointer.substring(pointer.lastIndexOf('/') + 1).replace("~1", "/").replace("~0", "~");
  }

  private static String parent(String pointer) {
    return pointer.substring(0, Math.max(0, pointer.lastIndexOf('/')));
  }
}
