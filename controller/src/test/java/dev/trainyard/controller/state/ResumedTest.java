package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint script's resume line (docs/checkpoints.md), as recorded from the compiled script's
 * run in {@code CheckpointHostsIT} ({@code progress/checkpoint-resume.log}).
 */
class ResumedTest {

  private static final Instant SAVED = Instant.parse("2026-12-02T14:02:11Z");

  /** The recorded resume line with its folder name and time replaced. */
  private static String line(String dir, String saved) {
    String recorded =
        LogProgressTest.fixture("checkpoint-resume.log")
            .lines()
            .filter(l -> l.startsWith("trainyard: attempt 1 resumes from "))
            .findFirst()
            .orElseThrow();
    String form =
        recorded.replaceFirst(
            "resumes from \\S+ \\(saved [^)]+\\)$", "resumes from DIR (saved SAVED)");
    assertTrue(form.endsWith("resumes from DIR (saved SAVED)"), recorded);
    String l = form.replace("DIR", dir);
    return saved == null ? l.replace(" (saved SAVED)", "") : l.replace("SAVED", saved);
  }

  @Test
  @DisplayName(
      "the recorded line: folder, the step its name gives, the UTC time of COMPLETE; in words with the day")
  void recorded() {
    Resumed r =
        Resumed.parse(line("/checkpoints/3f2a1b/step-3200", SAVED.toString())).orElseThrow();
    assertEquals(new Resumed("step-3200", 3200L, SAVED), r);
    assertEquals("resumed from step 3200 (checkpoint of Dec 2 14:02 UTC)", r.describe());
  }

  @Test
  @DisplayName(
      "step numbers in the common folder names (HF checkpoint-N, DeepSpeed global_stepN, N, step_N); any other name gives no step")
  void stepFromName() {
    assertEquals(3200L, step("/c/r/checkpoint-3200"));
    assertEquals(3200L, step("/c/r/global_step3200"));
    assertEquals(3200L, step("/c/r/3200"));
    assertEquals(3200L, step("/c/r/step_3200"));
    assertEquals(3200L, step("/c/r/Step-3200/"), "a trailing slash and any case");
    assertEquals(7L, step("/c/r/iter7"));
    assertNull(step("/c/r/epoch-3"));
    assertNull(step("/c/r/best"));
    assertNull(step("/c/r/step-3200-final"));
    assertNull(step("/c/r/" + "9".repeat(19)), "no number beyond a long");
    Resumed r = Resumed.parse(line("/c/r/epoch-3", SAVED.toString())).orElseThrow();
    assertEquals("epoch-3", r.checkpoint());
    assertEquals("resumed from a checkpoint of Dec 2 14:02 UTC", r.describe());
  }

  private static Long step(String dir) {
    return Resumed.parse(line(dir, SAVED.toString())).orElseThrow().step();
  }

  @Test
  @DisplayName("without the saved time (date -r failed) the words leave it out")
  void noTime() {
    Resumed r = Resumed.parse(line("/c/r/step-5", null)).orElseThrow();
    assertEquals(new Resumed("step-5", 5L, null), r);
    assertEquals("resumed from step 5", r.describe());
    assertEquals("resumed from a checkpoint", new Resumed("best", null, null).describe());
    assertNull(
        Resumed.parse(line("/c/r/step-5", "yesterday")).map(Resumed::savedAt).orElse(null),
        "not a time: the words of a folder named so are not trusted as one");
    assertEquals(
        Optional.empty(),
        Resumed.parse(line("/c/r/step-5", "2026-13-99T00:00:00Z")).map(Resumed::savedAt));
  }

  @Test
  @DisplayName("other lines are no resume line; the fresh start is recognised apart")
  void others() {
    assertEquals(Optional.empty(), Resumed.parse("[rank 0] step 21 loss 0.1"));
    assertEquals(Optional.empty(), Resumed.parse("xtrainyard: attempt 1 resumes from /c/r/s"));
    assertEquals(Optional.empty(), Resumed.parse("trainyard: attempt 1 resumes from /"));
    assertEquals(Optional.empty(), Resumed.parse("trainyard: attempt 1 resumes from "));
    String fresh =
        LogProgressTest.fixture("checkpoint-resume.log")
            .lines()
            .filter(l -> l.contains("starts fresh"))
            .findFirst()
            .orElseThrow();
    assertTrue(Resumed.fresh(fresh), fresh);
    assertFalse(Resumed.fresh(line("/c/r/step-5", null)));
    assertFalse(Resumed.fresh("x" + fresh));
    assertThrows(IllegalArgumentException.class, () -> new Resumed(" ", 1L, null));
    assertThrows(IllegalArgumentException.class, () -> new Resumed(null, 1L, null));
  }
}
