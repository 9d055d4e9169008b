package dev.trainyard.compiler.units;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code timeout:} values in days, hours, minutes and seconds. */
class DurationsTest {
  @ParameterizedTest(name = "{0} = {1} s")
  @CsvSource({
    "2d, 172800",
    "3h, 10800",
    "90m, 5400",
    "45s, 45",
    "1d2h3m4s, 93784",
    "1h30m, 5400",
    "2m5s, 125",
    "1d1s, 86401",
    "' 24h ', 86400",
    "0h1s, 1",
    "36500d, 3153600000",
    "3153600000s, 3153600000"
  })
  @DisplayName("each unit has its multiplier (d 86400, h 3600, m 60, s 1) and the parts add up")
  void seconds(String text, long seconds) {
    assertEquals(OptionalLong.of(seconds), Durations.seconds(text));
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "",
        "  ",
        "0s",
        "0d0h0m0s",
        "90",
        "1x",
        "h",
        "1h 30m",
        "30m1h",
        "-1h",
        "1.5h",
        "36500d1s",
        "3153600001s",
        "999999999999h",
        "9999999999999s",
        "99999999999999999999s",
        "99999999999999999999d"
      })
  @DisplayName(
      "zero, blank, a number without unit, units out of order, garbage and more than 36500 days (any number of digits) are no duration")
  void notADuration(String text) {
    assertEquals(OptionalLong.empty(), Durations.seconds(text));
  }

  @ParameterizedTest(name = "timeout: {0}")
  @CsvSource({"2d, 172800", "1d12h, 129600", "90m, 5400"})
  @DisplayName(
      "train.yaml accepts days too: the schema and Durations agree, and every Job gets the deadline")
  void trainYamlDays(String timeout, long seconds, @TempDir Path temp) {
    var r =
        TrainProject.create(temp, "run: torchrun train.py\ntimeout: " + timeout + "\n").compile();
    var jobSet = TrainProject.object(r, "JobSet");
    assertEquals(
        seconds,
        jobSet.at("/spec/replicatedJobs/0/template/spec/activeDeadlineSeconds").asLong(),
        r.diagnostics().toString());
  }

  @ParameterizedTest(name = "{0} = {1} ms")
  @CsvSource({
    "500ms, 500",
    "90s, 90000",
    "1m30s250ms, 90250",
    "' 2h ', 7200000",
    "1d1ms, 86400001",
    "36500d, 3153600000000"
  })
  @DisplayName("parse: the same grammar with milliseconds last, for flags and controller.yaml")
  void parse(String text, long millis) {
    assertEquals(Optional.of(Duration.ofMillis(millis)), Durations.parse(text));
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "",
        "0ms",
        "5ms5s",
        "1ms1ms",
        "36500d1ms",
        "1000000000000000ms",
        "99999999999999999999ms",
        "3153600000001s",
        "10",
        "1x"
      })
  @DisplayName(
      "parse: no duration, zero, parts out of order or twice, or over 36,500 days is empty")
  void notParsed(String text) {
    assertEquals(Optional.empty(), Durations.parse(text));
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource({"2000ms, 2", "1s1000ms, 2"})
  @DisplayName("seconds: milliseconds that make whole seconds count")
  void wholeSecondsFromMillis(String text, long seconds) {
    assertEquals(OptionalLong.of(seconds), Durations.seconds(text));
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"1500ms", "1s1ms", "999ms"})
  @DisplayName(
      "seconds: a part smaller than a second left over is no value for Kubernetes' seconds")
  void subSecond(String text) {
    assertEquals(OptionalLong.empty(), Durations.seconds(text));
  }
}
