package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.controller.state.Progress;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A log read with timestamps: each line's own time is when its progress was seen. */
class TimedLogTest {

  static final Instant NOW = Instant.parse("2026-12-02T09:00:00Z");

  @Test
  @DisplayName(
      "the last line's timestamp is the progress time; \\r updates share it; no progress line: empty")
  void timestamps() {
    Progress p =
        TimedLog.progress(
                "2026-12-02T08:00:00.123456789Z step 1/10\n"
                    + "2026-12-02T08:05:00.000000001Z \r 20%|██ | 2/10 [00:01<00:04, 1.0it/s]\r"
                    + " 30%|███ | 3/10 [00:02<00:03, 1.0it/s]\n"
                    + "2026-12-02T08:10:00Z saving checkpoint\n",
                NOW)
            .orElseThrow();
    assertEquals(3L, p.step());
    assertEquals(Instant.parse("2026-12-02T08:10:00Z"), p.updatedAt());
    assertEquals(Optional.empty(), TimedLog.progress("2026-12-02T08:00:00Z hello\n", NOW));
  }

  @Test
  @DisplayName("a line without a timestamp is read at now")
  void untimed() {
    Progress p = TimedLog.progress("step 4/8\nnot-a-time step 5/8", NOW).orElseThrow();
    assertEquals(5L, p.step());
    assertEquals(NOW, p.updatedAt());
    Progress dict =
        TimedLog.progress("2026-12-02T08:00:00Z {'loss': '0.5'}\n step 6/8", NOW).orElseThrow();
    assertEquals("0.5", dict.metrics().get(0).value(), "the text starts right after the time");
    assertEquals(6L, dict.step(), "a line starting with a space has no time");
  }
}
