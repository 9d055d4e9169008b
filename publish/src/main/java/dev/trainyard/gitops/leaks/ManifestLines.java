package dev.trainyard.gitops.leaks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Kubernetes object, and which of its top-level fields, each line of a manifest file belongs
 * to: the leak check allows a key only in the {@code data} or {@code stringData} of a Secret. An
 * object is a YAML document ({@code ---} separates them), or an item of a {@code kind: List}
 * document's {@code items} (kubectl, kustomize and Argo CD apply each item as an object of its
 * own). Read from the lines' indentation, as block-style YAML nests: a field of a document starts
 * in column 0, a field of a List item at the column after the item's {@code - }; a comment line
 * belongs to no field. Flow-style or otherwise unusual YAML yields no Secret field, so a key in it
 * is reported rather than allowed.
 *
 * <pre>
 * kind: List          line 1: the List, field kind
 * items:
 * - kind: Secret      line 3: item 1, a Secret, field kind
 *   data:
 *     key: LS0t...    line 5: item 1, a Secret, field data   (the only kind of line that may hold a key)
 * </pre>
 */
final class ManifestLines {
  private static final Pattern FIELD = Pattern.compile("^([A-Za-z0-9_.\"'-]+)[ \\t]*:(?:[ \\t]|$)");
  private static final Pattern KIND =
      Pattern.compile("^[ \\t]*(?:- )?kind:[ \\t]*([\"']?)([A-Za-z0-9]+)\\1[ \\t]*(?:#.*)?$");

  /**
   * Where one line sits.
   *
   * @param kind the object's {@code kind}, or "" when it has none
   * @param item 1-based index of the List item, or 0 for a document
   * @param field the object's top-level field the line belongs to, or "" (a comment, a document
   *     marker)
   */
  record Place(String kind, int item, String field) {
    static final Place NOWHERE = new Place("", 0, "");

    /** Whether the line holds a Secret's data, where a plain Secret keeps its key. */
    boolean inSecretData() {
      return kind.equals("Secret") && (field.equals("data") || field.equals("stringData"));
    }

    /** The words for a diagnostic, e.g. {@code the metadata of a Secret (item 2 of a List)}. */
    String describe() {
      String object =
          kind.isEmpty()
              ? "an object without a kind"
              : (kind.matches("[AEIOU].*") ? "an " : "a ") + kind;
      String where =
          field.isEmpty() ? "a comment or no field of " + object : "the " + field + " of " + object;
      return item == 0 ? where : where + " (item " + item + " of a List)";
    }
  }

  private ManifestLines() {}

  /**
   * {@code places[n]} is where 1-based line {@code n} of {@code text} sits ({@code places[0]} is
   * unused).
   */
  static Place[] of(String text) {
    String[] lines = text.split("\r?\n", -1);
    Place[] places = new Place[lines.length + 1];
    places[0] = Place.NOWHERE;
    int start = 0;
    for (int i = 0; i <= lines.length; i++) {
      if (i == lines.length || lines[i].startsWith("---") || lines[i].startsWith("...")) {
        document(lines, start, i, places);
        if (i < lines.length) {
          places[i + 1] = Place.NOWHERE;
        }
        start = i + 1;
      }
    }
    return places;
  }

  private static void document(String[] lines, int from, int to, Place[] places) {
    String kind = kindAt(lines, from, to, 0);
    String field = "";
    List<Integer> items = new ArrayList<>();
    int dash = -1;
    for (int i = from; i < to; i++) {
      Matcher m = FIELD.matcher(lines[i]);
      if (m.find()) {
        field = m.group(1);
      }
      boolean comment = lines[i].strip().startsWith("#");
      places[i + 1] = comment ? new Place(kind, 0, "") : new Place(kind, 0, field);
      boolean itemStart =
          kind.equals("List")
              && field.equals("items")
              && !comment
              && lines[i].stripLeading().startsWith("- ");
      // The first dash below items: sets the items' column; deeper dashes are lists inside an item.
      dash = itemStart && dash < 0 ? indent(lines[i]) : dash;
      if (itemStart && indent(lines[i]) == dash) {
        items.add(i);
      }
    }
    for (int n = 0; n < items.size(); n++) {
      int end = n + 1 < items.size() ? items.get(n + 1) : lastOfField(lines, items.get(n), to);
      item(lines, items.get(n), end, n + 1, places);
    }
  }

  /** One past the last line of the {@code items} field that starts before {@code to}. */
  private static int lastOfField(String[] lines, int from, int to) {
    for (int i = from + 1; i < to; i++) {
      if (FIELD.matcher(lines[i]).find()) {
        return i;
      }
    }
    return to;
  }

  /**
   * The List item whose {@code - } is on line index {@code from}: its fields start one column after
   * the dash.
   */
  private static void item(String[] lines, int from, int to, int index, Place[] places) {
    int column = lines[from].indexOf('-') + 2;
    String kind = kindAt(lines, from, to, column);
    String field = "";
    for (int i = from; i < to; i++) {
      String line = lines[i];
      String own =
          i == from ? line.substring(column) : indent(line) == column ? line.substring(column) : "";
      Matcher m = FIELD.matcher(own);
      if (m.find()) {
        field = m.group(1);
      }
      places[i + 1] =
          line.strip().startsWith("#") ? new Place(kind, index, "") : new Place(kind, index, field);
    }
  }

  /** The {@code kind:} among lines [{@code from}, {@code to}) at {@code column}, or "". */
  private static String kindAt(String[] lines, int from, int to, int column) {
    for (int i = from; i < to; i++) {
      boolean own =
          column > 0
              ? i == from || indent(lines[i]) == column
              : indent(lines[i]) == 0 && !lines[i].startsWith("-");
      Matcher m = KIND.matcher(lines[i]);
      if (own && m.matches()) {
        return m.group(2);
      }
    }
    return "";
  }

  private static int indent(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }
}
