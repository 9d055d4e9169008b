package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tuning flags of an {@code mpirun} a user wrote into {@code run} ({@code -bind-to none -map-by
 * slot --mca btl_tcp_if_include eth0}), as the train.yaml {@code mpi} field that expresses them:
 * {@code mpi: {bindTo: none, mapBy: slot, mca: {btl_tcp_if_include: eth0}}}.
 *
 * @param bindTo the {@code -bind-to} value, or ""
 * @param mapBy the {@code -map-by} value, or ""
 * @param mca MCA parameters by name
 */
record MpirunTuning(String bindTo, String mapBy, Map<String, String> mca) {
  MpirunTuning {
    mca = new TreeMap<>(mca);
  }

  /** The tuning flags of the mpirun at {@code mpirun} (its own simple command only). */
  static MpirunTuning of(RunTokens run, RunTokens.Word mpirun) {
    String bindTo = "";
    String mapBy = "";
    Map<String, String> mca = new TreeMap<>();
    List<RunTokens.Word> words = run.words();
    for (int i = run.indexOf(mpirun) + 1;
        i + 1 < words.size() && words.get(i + 1).command() == mpirun.command();
        i++) {
      String w = words.get(i).text();
      String next = words.get(i + 1).text();
      if (w.matches("--?bind-to")) {
        bindTo = quoted(next);
      } else if (w.matches("--?map-by")) {
        mapBy = quoted(next);
      } else if (w.matches("--?g?mca")
          && i + 2 < words.size()
          && words.get(i + 2).command() == mpirun.command()) {
        mca.put(next, words.get(i + 2).text());
      }
    }
    return new MpirunTuning(bindTo, mapBy, mca);
  }

  /** {@code mpi: {…}} in YAML flow style, or "" when there is no tuning. */
  String yaml() {
    List<String> parts = new ArrayList<>();
    if (!bindTo.isEmpty()) {
      parts.add("bindTo: " + bindTo);
    }
    if (!mapBy.isEmpty()) {
      parts.add("mapBy: " + mapBy);
    }
    if (!mca.isEmpty()) {
      List<String> params = new ArrayList<>();
      mca.forEach((k, v) -> params.add(k + ": " + quoted(v)));
      parts.add("mca: {" + String.join(", ", params) + "}");
    }
    return parts.isEmpty() ? "" : "mpi: {" + String.join(", ", parts) + "}";
  }

  /**
   * A YAML flow scalar: plain when only safe characters, else single-quoted (commas and colons end
   * a plain one).
   */
  private static String quoted(String value) {
    return value.matches("[A-Za-z0-9_./-]+") ? value : "'" + value.replace("'", "''") + "'";
  }
}
