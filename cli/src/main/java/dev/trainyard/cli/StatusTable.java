package dev.trainyard.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.state.Description;
import dev.trainyard.controller.state.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code trainyard status} output: a table (RUN, STATE, QUEUE, NODES ready/total, ATTEMPT n/max,
 * AGE, COMMIT, DESCRIPTION; NAMESPACE first with {@code -A}) or JSON (an array of objects with
 * sorted keys), one row per run, from the same {@link RunState} the controller posts.
 */
final class StatusTable {

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  static final List<String> HEADER =
      List.of("RUN", "STATE", "QUEUE", "NODES", "ATTEMPT", "AGE", "COMMIT", "DESCRIPTION");

  /** One run and its state. */
  record Row(ObservedRun run, RunState state) {}

  private StatusTable() {}

  /** "running", "failed (user)", "admitted (stalled)". */
  static String stateWord(RunState s) {
    String word = s.phase().name().toLowerCase(Locale.ROOT);
    if (s.phase().terminal() && s.cause() != dev.trainyard.controller.state.Cause.NONE) {
      return word + " (" + s.cause().name().toLowerCase(Locale.ROOT) + ")";
    }
    return s.stalled() ? word + " (stalled)" : word;
  }

  static String table(List<Row> rows, Instant now) {
    return table(rows, now, false);
  }

  /**
   * The table; with {@code namespaces} (status -A) a first NAMESPACE column, as kubectl get -A has.
   */
  static String table(List<Row> rows, Instant now, boolean namespaces) {
    List<List<String>> cells = new ArrayList<>();
    cells.add(namespaces ? concat("NAMESPACE", HEADER) : HEADER);
    for (Row r : rows) {
      RunState s = r.state();
      Instant created = r.run().observation().jobSet().created();
      List<String> line =
          List.of(
              r.run().provenance().run(),
              stateWord(s),
              r.run().observation().jobSet().localQueue().isEmpty()
                  ? "-"
                  : r.run().observation().jobSet().localQueue(),
              s.nodesReady() + "/" + s.nodesTotal(),
              s.attempt() + "/" + s.maxAttempts(),
              created == null
                  ? "-"
                  : Description.duration(Duration.between(created, now)).replace(" ", ""),
              shortSha(r.run().provenance().sourceCommit()),
              s.description());
      cells.add(namespaces ? concat(r.run().key().namespace(), line) : line);
    }
    int[] width = new int[cells.get(0).size()];
    cells.forEach(
        line -> {
          for (int i = 0; i < line.size(); i++) {
            width[i] = Math.max(width[i], line.get(i).length());
          }
        });
    StringBuilder b = new StringBuilder();
    for (List<String> line : cells) {
      StringBuilder l = new StringBuilder();
      for (int i = 0; i < line.size(); i++) {
        l.append(i == line.size() - 1 ? line.get(i) : pad(line.get(i), width[i] + 2));
      }
      b.append(l.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }

  static String json(List<Row> rows) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Row r : rows) {
      RunState s = r.state();
      Map<String, Object> m = new TreeMap<>();
      m.put("run", r.run().provenance().run());
      m.put("namespace", r.run().key().namespace());
      m.put("jobSet", r.run().key().name());
      m.put("state", s.phase().name().toLowerCase(Locale.ROOT));
      m.put("cause", s.cause().name().toLowerCase(Locale.ROOT));
      m.put("stalled", s.stalled());
      m.put("description", s.description());
      m.put("queue", r.run().observation().jobSet().localQueue());
      m.put("nodes", new LinkedHashMap<>(Map.of("ready", s.nodesReady(), "total", s.nodesTotal())));
      m.put("attempt", new LinkedHashMap<>(Map.of("current", s.attempt(), "max", s.maxAttempts())));
      m.put("node", s.node());
      m.put("exitCode", s.exitCode());
      m.put("durationSeconds", s.duration() == null ? null : s.duration().toSeconds());
      m.put("sourceRepo", r.run().provenance().sourceRepo());
      m.put("sourceCommit", r.run().provenance().sourceCommit());
      m.put("sourcePath", r.run().provenance().sourcePath());
      out.add(m);
    }
    try {
      return JSON.writeValueAsString(out) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> out = new ArrayList<>(List.of(first));
    out.addAll(rest);
    return out;
  }

  private static String shortSha(String sha) {
    return sha.length() > 7 ? sha.substring(0, 7) : sha;
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(Math.max(0, width - s.length()));
  }
}
