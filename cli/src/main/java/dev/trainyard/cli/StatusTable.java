package dev.trainyard.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.state.Cause;
import dev.trainyard.controller.state.Description;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.ProgressText;
import dev.trainyard.controller.state.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code trainyard status} output: a table (RUN, STATE, QUEUE, NODES ready/total, ATTEMPT n/max,
 * PROGRESS "370/1000 (37 %)", ETA "1h 45m", AGE, COMMIT, DESCRIPTION; NAMESPACE first with {@code
 * -A}) or JSON (an array of objects with sorted keys; {@code progress} null or {step, totalSteps,
 * percent, etaSeconds, metrics {name: value}, updatedAt, source}), one row per run, from the same
 * {@link RunState} the controller posts; for one run its last metrics follow the table ({@link
 * #metrics}).
 */
final class StatusTable {

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
  static final List<String> HEADER =
      List.of(
          "RUN",
          "STATE",
          "QUEUE",
          "NODES",
          "ATTEMPT",
          "PROGRESS",
          "ETA",
          "AGE",
          "COMMIT",
          "DESCRIPTION");

  /** One run and its state. */
  record Row(ObservedRun run, RunState state) {}

  private StatusTable() {}

  /** "running", "failed (user)", "admitted (stalled)". */
  static String stateWord(RunState s) {
    String word = s.phase().name().toLowerCase(Locale.ROOT);
    if (s.phase().terminal() && s.cause() != Cause.NONE) {
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
              ProgressText.column(r.run().observation().progress()),
              ProgressText.eta(r.run().observation().progress()),
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
      m.put("progress", r.run().observation().progress().map(StatusTable::progress).orElse(null));
      out.add(m);
    }
    try {
      return JSON.writeValueAsString(out) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A progress as JSON: step, totalSteps, percent, etaSeconds (null when unknown), metrics. */
  private static Map<String, Object> progress(Progress p) {
    Map<String, Object> m = new TreeMap<>();
    m.put("step", p.step());
    m.put("totalSteps", p.totalSteps());
    m.put("percent", p.percent());
    m.put("etaSeconds", p.remaining() == null ? null : p.remaining().toSeconds());
    Map<String, String> metrics = new LinkedHashMap<>();
    p.metrics().forEach(x -> metrics.put(x.name(), x.value()));
    m.put("metrics", metrics);
    m.put("updatedAt", p.updatedAt().toString());
    m.put("source", p.source().name().toLowerCase(Locale.ROOT));
    return m;
  }

  /**
   * The run's last metrics under the table of {@code trainyard status RUN}, e.g. "metrics at step
   * 30/30 (2026-12-02T08:00:05Z): loss 3.899, grad_norm 0.9951"; "" without metrics.
   */
  static String metrics(Row r) {
    Optional<Progress> p = r.run().observation().progress();
    if (p.isEmpty() || p.get().metrics().isEmpty()) {
      return "";
    }
    String at = ProgressText.position(p.get());
    return "\nmetrics"
        + (at.isEmpty() ? "" : " at " + at)
        + " ("
        + p.get().updatedAt()
        + "): "
        + String.join(
            ", ", p.get().metrics().stream().map(m -> m.name() + " " + m.value()).toList())
        + "\n";
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
