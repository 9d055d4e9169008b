package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.trainyard.controller.state.Progress.Metric;
import dev.trainyard.controller.state.Progress.Source;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The progress record's rules: ranges, a derived percentage, a bounded metric list. */
class ProgressTest {

  private static final Instant AT = Instant.parse("2026-12-02T08:00:00Z");

  @Test
  @DisplayName(
      "percent is derived from step and total (rounded down, at most 100) when none was given")
  void derivedPercent() {
    assertEquals(37, new Progress(370L, 1000L, null, null, null, AT, Source.LOG).percent());
    assertEquals(100, new Progress(1200L, 1000L, null, null, null, AT, Source.LOG).percent());
    assertEquals(12, new Progress(370L, 1000L, 12, null, null, AT, Source.PUSH).percent());
    assertNull(new Progress(370L, null, null, null, null, AT, Source.LOG).percent());
    assertNull(new Progress(null, 1000L, null, null, null, AT, Source.LOG).percent());
  }

  @Test
  @DisplayName(
      "negative steps, a total below 1, percent outside 0-100, negative ETA and missing time are refused")
  void ranges() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(-1L, null, null, null, null, AT, Source.LOG));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(0L, 0L, null, null, null, AT, Source.LOG));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(null, null, 101, null, null, AT, Source.PUSH));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(null, null, -1, null, null, AT, Source.PUSH));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(null, null, null, Duration.ofSeconds(-1), null, AT, Source.PUSH));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Progress(null, null, null, null, null, null, Source.PUSH));
    assertThrows(
        IllegalArgumentException.class, () -> new Progress(null, null, null, null, null, AT, null));
    assertEquals(0, new Progress(0L, 1L, 0, Duration.ZERO, null, AT, Source.LOG).percent());
    assertEquals(100, new Progress(null, null, 100, null, null, AT, Source.PUSH).percent());
  }

  @Test
  @DisplayName("metrics keep their order, at most eight; a metric needs a name and a value")
  void metrics() {
    List<Metric> many = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      many.add(new Metric("m" + i, Integer.toString(i)));
    }
    List<Metric> kept = new Progress(null, null, null, null, many, AT, Source.PUSH).metrics();
    assertEquals(Progress.MAX_METRICS, kept.size());
    assertEquals("m0", kept.get(0).name());
    assertEquals("m7", kept.get(7).name());
    assertEquals(List.of(), new Progress(1L, null, null, null, null, AT, Source.LOG).metrics());
    assertThrows(IllegalArgumentException.class, () -> new Metric(" ", "1"));
    assertThrows(IllegalArgumentException.class, () -> new Metric("loss", ""));
    assertThrows(IllegalArgumentException.class, () -> new Metric(null, "1"));
    assertThrows(IllegalArgumentException.class, () -> new Metric("loss", null));
  }

  @Test
  @DisplayName(
      "an observation carries its progress through withJobs and withEarlier; none by default")
  void observationCarriesProgress() {
    JobSetSnapshot js = new JobSetSnapshot("n", "j", null, false, 1, 0, 0, null, List.of());
    RunObservation o = new RunObservation(js, List.of(), Optional.empty(), AT);
    assertEquals(Optional.empty(), o.progress());
    Progress p = new Progress(1L, 2L, null, null, null, AT, Source.LOG);
    RunObservation with = o.withProgress(Optional.of(p));
    assertEquals(Optional.of(p), with.withJobs(List.of()).withEarlier(Optional.empty()).progress());
    assertEquals(Optional.empty(), with.withProgress(null).progress());
  }
}
