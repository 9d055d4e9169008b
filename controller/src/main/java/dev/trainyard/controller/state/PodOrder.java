package dev.trainyard.controller.state;

import java.util.Comparator;
import java.util.List;

/**
 * The order in which pods are asked for evidence, so the one a description names does not depend on
 * the order an informer or a list call returned them: the newest restart attempt first, then by
 * name with numbers compared as numbers. JobSet names pods {@code <jobset>-<replicated job>-<job
 * index>-<completion index>-<suffix>}, so this is the lowest index first: {@code …-node-0-2-x}
 * before {@code …-node-0-10-y}.
 */
final class PodOrder {

  /** Newest attempt first, then the lowest index (name in natural order). */
  static final Comparator<PodSnapshot> EVIDENCE =
      Comparator.comparingInt(PodSnapshot::attempt)
          .reversed()
          .thenComparing(PodSnapshot::name, PodOrder::natural);

  private PodOrder() {}

  static List<PodSnapshot> sorted(List<PodSnapshot> pods) {
    return pods.stream().sorted(EVIDENCE).toList();
  }

  /** Compares {@code a} and {@code b} chunk by chunk, runs of digits by their value. */
  static int natural(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ie = chunkEnd(a, i);
      int je = chunkEnd(b, j);
      String x = a.substring(i, ie);
      String y = b.substring(j, je);
      int c =
          Character.isDigit(x.charAt(0)) && Character.isDigit(y.charAt(0))
              ? numbers(x, y)
              : x.compareTo(y);
      if (c != 0) {
        return c;
      }
      i = ie;
      j = je;
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static int numbers(String x, String y) {
    String p = x.replaceFirst("^0+(?=.)", "");
    String q = y.replaceFirst("^0+(?=.)", "");
    return p.length() != q.length() ? Integer.compare(p.length(), q.length()) : p.compareTo(q);
  }

  private static int chunkEnd(String s, int from) {
    boolean digit = Character.isDigit(s.charAt(from));
    int k = from;
    while (k < s.length() && Character.isDigit(s.charAt(k)) == digit) {
      k++;
    }
    return k;
  }
}
