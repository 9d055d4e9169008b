package dev.trainyard.controller.state;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a run's current attempt resumed from, as the pod's checkpoint script logs it before the
 * program starts ({@code compiler.render.CheckpointParts.SCRIPT}, {@code docs/checkpoints.md}; the
 * form was recorded from the compiled script's run in {@code CheckpointHostsIT}, fixture {@code
 * progress/checkpoint-resume.log}):
 *
 * <pre>
 * trainyard: attempt 1 resumes from /checkpoints/3f2a1b/step-3200 (saved 2026-12-02T14:02:11Z)
 *   → Resumed[checkpoint=step-3200, step=3200, savedAt=2026-12-02T14:02:11Z]
 *   → "resumed from step 3200 (checkpoint of Dec 2 14:02 UTC)"
 * </pre>
 *
 * <ul>
 *   <li>{@code checkpoint}: the last part of {@code RESUME_FROM}, the folder the program saved;
 *       never blank.
 *   <li>{@code step}: the step that folder's name gives ({@code 3200}, {@code step-3200}, {@code
 *       step_3200}, Hugging Face's {@code checkpoint-3200}, DeepSpeed's {@code global_step3200}),
 *       null when the name is no step number ({@code epoch-3}, {@code best}).
 *   <li>{@code savedAt}: when its {@code COMPLETE} marker was written (UTC, whole seconds), null
 *       when the script could not read it.
 * </ul>
 */
public record Resumed(String checkpoint, Long step, Instant savedAt) {

  private static final Pattern LINE =
      Pattern.compile(
          "^trainyard: attempt \\d+ resumes from (?<dir>.*?)(?: \\(saved (?<saved>[0-9TZ:-]+)\\))?\\s*$");
  private static final Pattern FRESH =
      Pattern.compile("^trainyard: attempt \\d+ starts fresh: no complete checkpoint\\s*$");
  private static final Pattern STEP =
      Pattern.compile("(?i)^(?:(?:step|checkpoint|global_step|iter|iteration)[-_]?)?(\\d{1,18})$");
  private static final DateTimeFormatter SAVED =
      DateTimeFormatter.ofPattern("MMM d HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);

  public Resumed {
    if (checkpoint == null || checkpoint.isBlank()) {
      throw new IllegalArgumentException("a resumed checkpoint needs a name");
    }
  }

  /** The resume line {@code line} (one log line without its end) says, else empty. */
  public static Optional<Resumed> parse(String line) {
    Matcher m = LINE.matcher(line);
    if (!m.matches()) {
      return Optional.empty();
    }
    String dir = m.group("dir");
    while (dir.endsWith("/")) {
      dir = dir.substring(0, dir.length() - 1);
    }
    String name = dir.substring(dir.lastIndexOf('/') + 1);
    if (name.isBlank()) {
      return Optional.empty();
    }
    Matcher s = STEP.matcher(name);
    Long step = s.matches() ? Long.valueOf(s.group(1)) : null;
    return Optional.of(new Resumed(name, step, instant(m.group("saved"))));
  }

  /** Whether {@code line} says the attempt starts fresh (no complete checkpoint). */
  public static boolean fresh(String line) {
    return FRESH.matcher(line).matches();
  }

  /**
   * In words: "resumed from step 3200 (checkpoint of Dec 2 14:02 UTC)", "resumed from a checkpoint
   * of Dec 2 14:02 UTC" (no step in the name), "resumed from step 3200", "resumed from a
   * checkpoint".
   */
  public String describe() {
    String of = savedAt == null ? "" : "checkpoint of " + SAVED.format(savedAt);
    if (step != null) {
      return "resumed from step " + step + (of.isEmpty() ? "" : " (" + of + ")");
    }
    return "resumed from a " + (of.isEmpty() ? "checkpoint" : of);
  }

  private static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
