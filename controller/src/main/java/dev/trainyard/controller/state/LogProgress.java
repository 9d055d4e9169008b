package dev.trainyard.controller.state;

import dev.trainyard.controller.state.Progress.Metric;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's progress read from its rank 0 log, one line (or {@code \r}-separated segment) at a time:
 * the lines the common trainers print without any change to the script. Each format was checked
 * against output recorded from the real library ({@code scripts/record-progress-fixtures}, the
 * fixtures under {@code controller/src/test/resources/progress/} with their versions):
 *
 * <pre>
 * tqdm (4.70)               " 37%|███▋      | 370/1000 [01:02&lt;01:45, 5.93it/s, loss=0.53]"
 *                           (a description before the bar, e.g. Lightning's "Epoch 0: " or
 *                           torchtune's "1|3|Loss: 2.3: ", is read for its epoch and metrics)
 * Hugging Face Trainer (5)  "{'loss': '3.899', 'grad_norm': '0.808', 'learning_rate': '4.3e-05', 'epoch': '0.31'}"
 *                           and its banner "  Total optimization steps = 30" (log_level info)
 * Keras 3                   "Epoch 2/3" then "5/10 ━━━━━━━━━━ 0s 2ms/step - loss: 0.53"
 * a plain loop              "step 370/1000 loss 0.53" (also "Step 370/1000", "step: 370/1000")
 * </pre>
 *
 * Parts merge: the bar gives step, total and the remaining time, a log dict the metrics, so a
 * Hugging Face run reads "step 10/30 … loss 3.899". Within epochs (Keras, Lightning with {@code
 * Epoch N/M}) the step counts across epochs once the number of epochs is known. Every line read,
 * recognised or not, moves {@link Progress#updatedAt()}: a run that prints is alive ({@link
 * RunStateMapper} calls a run stalled only when neither its progress nor its log moved). The
 * checkpoint script's line saying where the attempt resumed from is kept apart ({@link #resumed}).
 * Not thread-safe: one per followed log.
 */
public final class LogProgress {

  /** Segments longer than this are not parsed (a progress line is short; a dump is not). */
  public static final int MAX_SEGMENT = 4096;

  private static final String RESUME_PREFIX = "trainyard: attempt ";
  private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]|\b");
  private static final Pattern TQDM =
      Pattern.compile(
          "(?<desc>.*?)\\s*(?<pct>\\d{1,3})%\\|[^|]*\\|\\s*(?<step>\\d+)/(?<total>\\d+)"
              + "\\s*\\[(?<elapsed>[\\d:]+)<(?<left>[\\d:]+|\\?)(?<post>[^\\]]*)\\]");
  private static final Pattern KERAS_EPOCH = Pattern.compile("^Epoch (\\d+)/(\\d+)\\s*$");
  private static final Pattern KERAS_BAR =
      Pattern.compile("^\\s*(\\d+)/(\\d+) \u2501+\\S*\\s+[^-]*?(?:- (?<metrics>.*))?$");
  private static final Pattern RICH =
      Pattern.compile(
          "^Epoch (\\d+)/(\\d+)\\s+\u2501+\\s+(\\d+)/(\\d+)\\s+[\\d:]+\\s+\u2022\\s+\\S+(?<metrics>.*)$");
  private static final Pattern PLAIN =
      Pattern.compile("(?i)\\bstep[:=]?\\s*(\\d+)\\s*(?:/|of)\\s*(\\d+)\\b");
  private static final Pattern HF_DICT = Pattern.compile("^\\{'[A-Za-z_][^{}]*\\}$");
  private static final Pattern HF_PAIR =
      Pattern.compile("'([A-Za-z_][\\w/.-]*)':\\s*'?([-+]?[\\d.]+(?:[eE][-+]?\\d+)?)'?");
  private static final Pattern HF_TOTAL =
      Pattern.compile("^(?:\\[transformers\\])?\\s*Total optimization steps = ([\\d,]+)\\s*$");
  private static final Pattern PAIR =
      Pattern.compile(
          "([A-Za-z_][\\w/.-]*)(?:\\s*[:=]\\s*|\\s+)([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)\\b");
  private static final Pattern EPOCH_DESC = Pattern.compile("(?i)\\bepoch\\s+(\\d+)\\b");

  /**
   * The world size rank 0 printed: Lightning's "Initializing distributed: GLOBAL_RANK: 0, MEMBER:
   * 1/4" and "All distributed processes registered. Starting with 4 processes" (Lightning 2.x,
   * lightning/fabric/utilities/distributed.py, {@code _init_dist_connection}); Accelerate's state
   * as Hugging Face's and diffusers' training scripts log it ({@code
   * logger.info(accelerator.state)}: "Num processes: 1", accelerate/state.py {@code
   * PartialState.__repr__}); a script's own "world size 4", "world_size=4" or "WORLD_SIZE: 4" (not
   * "local world size").
   */
  private static final Pattern WORLD =
      Pattern.compile(
          "MEMBER: \\d+/(\\d+)"
              + "|All distributed processes registered\\. Starting with (\\d+) process"
              + "|^Num processes: (\\d+)\\s*$"
              + "|(?i)(?<!local[ _])\\bworld[ _]size\\b\\s*[:=]?\\s*(\\d+)\\b");

  private Long step;
  private Long total;
  private Duration remaining;
  private List<Metric> metrics = List.of();
  private Instant updatedAt;
  private boolean seen;
  private boolean read;
  private int worldSize;
  private int epoch;
  private int epochs;
  private Resumed resumed;

  /** Whether any line that is not blank was read ("the log was served and held something"). */
  public boolean read() {
    return read;
  }

  /** The largest world size rank 0 printed ({@link #WORLD}); 0 when it printed none. */
  public int worldSize() {
    return worldSize;
  }

  /** The progress read so far; empty until a progress line was recognised. */
  public Optional<Progress> current() {
    if (!seen) {
      return Optional.empty();
    }
    return Optional.of(
        new Progress(step, total, null, remaining, metrics, updatedAt, Progress.Source.LOG));
  }

  /**
   * Where the attempt resumed from, as its checkpoint script's line said ({@link Resumed}); empty
   * before that line and after one saying the attempt starts fresh. Not a progress: it moves
   * neither {@link #current} nor the stall.
   */
  public Optional<Resumed> resumed() {
    return Optional.ofNullable(resumed);
  }

  /**
   * Reads {@code text} (any number of lines, {@code \n}- or {@code \r}-separated) read at {@code
   * at}; returns whether a progress line was among them.
   */
  public boolean acceptText(String text, Instant at) {
    boolean any = false;
    for (String segment : text.split("[\r\n]")) {
      any |= accept(segment, at);
    }
    return any;
  }

  /**
   * Reads one segment (a line without its {@code \n}, or one of the {@code \r}-separated updates of
   * a bar) read at {@code at}; returns whether it was a progress line.
   */
  public boolean accept(String segment, Instant at) {
    updatedAt = at;
    if (segment.length() > MAX_SEGMENT || segment.isBlank()) {
      return false;
    }
    read = true;
    String line =
        segment.indexOf('\u001B') >= 0 || segment.indexOf('\b') >= 0
            ? ANSI.matcher(segment).replaceAll("")
            : segment;
    world(line);
    if (line.startsWith(RESUME_PREFIX)) {
      resume(line);
      return false;
    }
    boolean hit =
        tqdm(line) || rich(line) || keras(line) || hfDict(line) || hfTotal(line) || plain(line);
    seen |= hit;
    return hit;
  }

  /** The checkpoint script's resume or fresh-start line ({@link Resumed}). */
  private void resume(String line) {
    Optional<Resumed> r = Resumed.parse(line);
    if (r.isPresent()) {
      resumed = r.get();
    } else if (Resumed.fresh(line)) {
      resumed = null;
    }
  }

  /** Keeps the largest world size {@code line} names ({@link #WORLD}). */
  private void world(String line) {
    Matcher m = WORLD.matcher(line);
    while (m.find()) {
      for (int g = 1; g <= m.groupCount(); g++) {
        String n = m.group(g);
        if (n != null && n.length() <= 9) {
          worldSize = Math.max(worldSize, Integer.parseInt(n));
        }
      }
    }
  }

  private boolean tqdm(String line) {
    if (line.indexOf('|') < 0) {
      return false;
    }
    Matcher m = TQDM.matcher(line);
    if (!m.find()) {
      return false;
    }
    long s = Long.parseLong(m.group("step"));
    long t = Long.parseLong(m.group("total"));
    if (t < 1) {
      return false;
    }
    String desc = m.group("desc");
    Matcher e = EPOCH_DESC.matcher(desc);
    if (e.find() && epochs > 0) {
      // Lightning counts epochs from 0 in its bar ("Epoch 0:").
      within(Integer.parseInt(e.group(1)) + 1, s, t);
    } else {
      position(s, t);
    }
    remaining = "?".equals(m.group("left")) ? null : clock(m.group("left"));
    List<Metric> found = new ArrayList<>(pairs(desc));
    found.addAll(pairs(m.group("post")));
    if (!found.isEmpty()) {
      metrics = found;
    }
    return true;
  }

  private boolean keras(String line) {
    Matcher e = KERAS_EPOCH.matcher(line);
    if (e.matches()) {
      epoch = Integer.parseInt(e.group(1));
      epochs = Integer.parseInt(e.group(2));
      return true;
    }
    Matcher b = KERAS_BAR.matcher(line);
    if (!b.matches()) {
      return false;
    }
    long t = Long.parseLong(b.group(2));
    if (t < 1) {
      return false;
    }
    within(epoch, Long.parseLong(b.group(1)), t);
    remaining = null;
    if (b.group("metrics") != null) {
      List<Metric> found = pairs(b.group("metrics"));
      if (!found.isEmpty()) {
        metrics = found;
      }
    }
    return true;
  }

  /**
   * Lightning's RichProgressBar: "Epoch 2/2 ━━━━ 10/10 0:00:00 • 713.03it/s train_loss: 0.002",
   * epochs counted from 0 up to max_epochs - 1.
   */
  private boolean rich(String line) {
    Matcher m = RICH.matcher(line);
    if (!m.matches()) {
      return false;
    }
    long t = Long.parseLong(m.group(4));
    if (t < 1) {
      return false;
    }
    epochs = Integer.parseInt(m.group(2)) + 1;
    within(Integer.parseInt(m.group(1)) + 1, Long.parseLong(m.group(3)), t);
    remaining = null;
    List<Metric> found = pairs(m.group("metrics"));
    if (!found.isEmpty()) {
      metrics = found;
    }
    return true;
  }

  private boolean hfDict(String line) {
    String s = line.strip();
    if (!s.startsWith("{'") || !HF_DICT.matcher(s).matches()) {
      return false;
    }
    Map<String, String> found = new LinkedHashMap<>();
    Matcher m = HF_PAIR.matcher(s);
    while (m.find()) {
      found.putIfAbsent(m.group(1), m.group(2));
    }
    if (found.isEmpty()) {
      return false;
    }
    metrics = found.entrySet().stream().map(x -> new Metric(x.getKey(), x.getValue())).toList();
    return true;
  }

  private boolean hfTotal(String line) {
    Matcher m = HF_TOTAL.matcher(line);
    if (!m.matches()) {
      return false;
    }
    long t = Long.parseLong(m.group(1).replace(",", ""));
    if (t < 1) {
      return false;
    }
    total = t;
    if (step == null) {
      step = 0L;
    }
    return true;
  }

  private boolean plain(String line) {
    Matcher m = PLAIN.matcher(line);
    if (!m.find()) {
      return false;
    }
    long t = Long.parseLong(m.group(2));
    if (t < 1) {
      return false;
    }
    position(Long.parseLong(m.group(1)), t);
    remaining = null;
    List<Metric> found = pairs(line.substring(m.end()));
    if (!found.isEmpty()) {
      metrics = found;
    }
    return true;
  }

  /** Step {@code s} of {@code t} within epoch {@code e} (1-based) of {@link #epochs}. */
  private void within(int e, long s, long t) {
    if (e >= 1 && epochs >= e) {
      position((e - 1) * t + s, epochs * t);
    } else {
      position(s, t);
    }
  }

  private void position(long s, long t) {
    step = s;
    total = t;
  }

  /** "name value", "name: value", "name=value" pairs with a numeric value, in order. */
  static List<Metric> pairs(String text) {
    List<Metric> out = new ArrayList<>();
    Matcher m = PAIR.matcher(text);
    while (m.find() && out.size() < Progress.MAX_METRICS) {
      out.add(new Metric(m.group(1), m.group(2)));
    }
    return out;
  }

  /** tqdm's "01:45" or "1:02:03" as a duration. */
  static Duration clock(String text) {
    long seconds = 0;
    for (String part : text.split(":")) {
      if (part.isEmpty()) {
        return null;
      }
      seconds = seconds * 60 + Long.parseLong(part);
    }
    return Duration.ofSeconds(seconds);
  }
}
