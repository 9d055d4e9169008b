package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.state.Progress.Metric;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The log parsers on output recorded from the real libraries ({@code
 * scripts/record-progress-fixtures}; versions in {@code progress/VERSIONS.txt}).
 */
class LogProgressTest {

  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");

  static String fixture(String name) {
    try (InputStream in = LogProgressTest.class.getResourceAsStream("/progress/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fixture fed segment by segment; the progress after each recognised segment, in order. */
  static List<Progress> replay(String name) {
    LogProgress p = new LogProgress();
    List<Progress> seen = new ArrayList<>();
    int i = 0;
    for (String segment : fixture(name).split("[\r\n]")) {
      if (p.accept(segment, T0.plusSeconds(i++))) {
        seen.add(p.current().orElseThrow());
      }
    }
    return seen;
  }

  private static String steps(List<Progress> seen) {
    return String.join(
        " ",
        seen.stream()
            .filter(x -> x.step() != null)
            .map(x -> x.step() + "/" + x.totalSteps() + "=" + x.percent())
            .toList());
  }

  private static String metric(Progress p, String name) {
    return p.metrics().stream()
        .filter(m -> m.name().equals(name))
        .map(Metric::value)
        .findFirst()
        .orElse(null);
  }

  @Test
  @DisplayName("tqdm under torch DDP: each \\r update is a step of 40, the remaining time read")
  void tqdm() {
    List<Progress> seen = replay("tqdm-ddp.log");
    assertEquals(
        "0/40=0 2/40=5 4/40=10 6/40=15 8/40=20 10/40=25 12/40=30 14/40=35 16/40=40 18/40=45"
            + " 20/40=50 22/40=55 24/40=60 26/40=65 28/40=70 30/40=75 32/40=80 34/40=85"
            + " 36/40=90 38/40=95 40/40=100 40/40=100",
        steps(seen));
    assertNull(seen.get(0).remaining(), "tqdm prints '?' before its first rate");
    assertEquals(Duration.ofSeconds(2), seen.get(1).remaining());
    assertEquals(Duration.ZERO, seen.get(seen.size() - 1).remaining());
    assertEquals(List.of(), seen.get(seen.size() - 1).metrics());
  }

  @Test
  @DisplayName(
      "Hugging Face Trainer: the bar's steps and the log dict's string values merge into one progress")
  void hfTrainer() {
    List<Progress> seen = replay("hf-trainer.log");
    // The dict logged at step 10 follows the bar's 10/30 and keeps it.
    Progress tenth =
        seen.stream().filter(p -> "3.905".equals(metric(p, "loss"))).findFirst().orElseThrow();
    assertEquals(10L, tenth.step());
    assertEquals(30L, tenth.totalSteps());
    assertEquals(Duration.ofSeconds(4), tenth.remaining());
    assertEquals("3.5e-05", metric(tenth, "learning_rate"));
    assertEquals("0.625", metric(tenth, "epoch"));
    Progress last = seen.get(seen.size() - 1);
    assertEquals(30L, last.step());
    assertEquals(100, last.percent());
  }

  @Test
  @DisplayName("Hugging Face banner (log_level info): 'Total optimization steps = 30' is the total")
  void hfBanner() {
    LogProgress p = new LogProgress();
    for (String line : fixture("hf-trainer-info.log").split("\n")) {
      p.accept(line, T0);
      if (line.contains("Total optimization steps")) {
        break;
      }
    }
    Progress banner = p.current().orElseThrow();
    assertEquals(0L, banner.step());
    assertEquals(30L, banner.totalSteps());
    assertEquals(0, banner.percent());
  }

  @Test
  @DisplayName(
      "Keras 3: 'Epoch 2/3' then the step bar (colours, backspaces and \\r) count across epochs")
  void keras() {
    List<Progress> seen = replay("keras.log");
    assertEquals(
        "1/30=3 2/30=6 9/30=30 10/30=33 10/30=33 11/30=36 19/30=63 20/30=66 20/30=66 21/30=70"
            + " 27/30=90 30/30=100",
        steps(seen));
    assertEquals(List.of(new Metric("loss", "5.4725")), seen.get(seen.size() - 1).metrics());
    assertNull(seen.get(0).step(), "'Epoch 1/3' comes before any step");
  }

  @Test
  @DisplayName(
      "Lightning's TQDM bar: 'Epoch 0:' and its postfix train_loss; steps count within the epoch")
  void lightningTqdm() {
    List<Progress> seen = replay("lightning-tqdm.log");
    Progress first = seen.get(0);
    assertEquals(0L, first.step());
    assertEquals(10L, first.totalSteps());
    Progress loss = seen.get(2);
    assertEquals(1L, loss.step());
    assertEquals("6.570", metric(loss, "train_loss"));
    assertEquals("0", metric(loss, "Epoch"));
    Progress last = seen.get(seen.size() - 1);
    assertEquals("2", metric(last, "Epoch"));
    assertEquals(10L, last.totalSteps());
  }

  @Test
  @DisplayName("Lightning's RichProgressBar: 'Epoch 2/2' (from 0) and 10/10 is step 30 of 30")
  void lightningRich() {
    List<Progress> seen = replay("lightning-rich.log");
    assertEquals("30/30=100", steps(seen));
    assertEquals(List.of(new Metric("train_loss", "0.002")), seen.get(0).metrics());
  }

  @Test
  @DisplayName("a plain 'step N/M loss X' loop")
  void plain() {
    List<Progress> seen = replay("plain-steps.log");
    assertEquals(10, seen.size());
    assertEquals("5/50=10", steps(seen.subList(0, 1)));
    assertEquals("50/50=100", steps(seen.subList(9, 10)));
    assertEquals(List.of(new Metric("loss", "0.0008")), seen.get(9).metrics());
  }

  @Test
  @DisplayName("lines that are not progress move only the time; nothing is seen before a progress")
  void activity() {
    LogProgress p = new LogProgress();
    assertFalse(p.accept("loading data", T0));
    assertEquals(Optional.empty(), p.current());
    assertTrue(p.accept("step 3/10", T0));
    assertFalse(p.accept("still here", T0.plusSeconds(60)));
    assertEquals(T0.plusSeconds(60), p.current().orElseThrow().updatedAt());
    assertEquals(3L, p.current().orElseThrow().step());
    assertFalse(p.accept("", T0.plusSeconds(61)));
    assertFalse(p.accept("step 1/" + "9".repeat(LogProgress.MAX_SEGMENT), T0));
    assertFalse(p.accept("step 1/0", T0));
    assertEquals(3L, p.current().orElseThrow().step());
  }

  @Test
  @DisplayName("tqdm's remaining time in hours, and a description's metrics (torchtune's shape)")
  void clockAndDescription() {
    LogProgress p = new LogProgress();
    assertTrue(
        p.acceptText("1|3|Loss: 2.3051:  30%|███       | 3/10 [00:05<1:02:03, 1.72s/it]\n", T0));
    Progress x = p.current().orElseThrow();
    assertEquals(Duration.ofSeconds(3723), x.remaining());
    assertEquals("2.3051", metric(x, "Loss"));
    assertEquals(30, x.percent());
    assertNull(LogProgress.clock("1::2"));
  }

  @Test
  @DisplayName("a total of 0 is no progress in any format; the segment limit is inclusive")
  void zeroTotalsAndLimits() {
    LogProgress p = new LogProgress();
    assertFalse(p.accept(" 0%|          | 0/0 [00:00<?, ?it/s]", T0));
    assertFalse(p.accept(" 0/0 \u2501\u2501\u2501 0s 2ms/step - loss: 1.0", T0));
    assertFalse(p.accept("Epoch 0/2  \u2501\u2501\u2501 0/0 0:00:00 \u2022 1.0it/s loss: 1", T0));
    assertFalse(p.accept("  Total optimization steps = 0", T0));
    assertFalse(p.accept("{'note': 'none'}", T0));
    assertFalse(p.accept("{'loss': '1.0'", T0));
    assertFalse(p.acceptText("hello\nworld", T0));
    assertEquals(Optional.empty(), p.current());
    String pad = " ".repeat(LogProgress.MAX_SEGMENT - "step 1/2".length());
    assertTrue(p.accept(pad + "step 1/2", T0), "exactly MAX_SEGMENT characters");
    assertFalse(p.accept(pad + " step 1/2", T0));
    assertTrue(p.acceptText("x\rstep 2/2\n", T0));
    assertEquals(2L, p.current().orElseThrow().step());
    assertTrue(p.accept("  Total optimization steps = 1,000", T0));
    assertEquals(2L, p.current().orElseThrow().step(), "a banner keeps the step seen");
    assertEquals(1000L, p.current().orElseThrow().totalSteps());
  }

  @Test
  @DisplayName("Lightning's TQDM bar after 'Epoch N/M' counts across epochs (from 0 in the bar)")
  void tqdmAcrossEpochs() {
    LogProgress p = new LogProgress();
    p.accept("Epoch 1/3", T0);
    assertTrue(p.accept("Epoch 1: 50%|█████     | 5/10 [00:01<00:01, 5.0it/s, loss=0.5]", T0));
    assertEquals(15L, p.current().orElseThrow().step());
    assertEquals(30L, p.current().orElseThrow().totalSteps());
    assertTrue(p.accept("Epoch 3: 50%|█████     | 5/10 [00:01<00:01, 5.0it/s]", T0));
    assertEquals(5L, p.current().orElseThrow().step(), "an epoch past the known ones: its own");
    assertEquals(10L, p.current().orElseThrow().totalSteps());
    assertTrue(p.accept(" 5/10 \u2501\u2501\u2501 0s 2ms/step", T0));
    assertEquals(5L, p.current().orElseThrow().step(), "a Keras bar in epoch 1 of 3");
    LogProgress q = new LogProgress();
    q.accept("Epoch 0/3", T0);
    q.accept(" 5/10 \u2501\u2501\u2501 0s 2ms/step", T0);
    assertEquals(10L, q.current().orElseThrow().totalSteps(), "epoch 0 is no epoch of 1..M");
  }

  @Test
  @DisplayName("at most eight metrics are read from one line")
  void metricsCapped() {
    LogProgress p = new LogProgress();
    p.accept("step 1/2 a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9", T0);
    assertEquals(8, p.current().orElseThrow().metrics().size());
    assertEquals("h", p.current().orElseThrow().metrics().get(7).name());
  }

  @Test
  @DisplayName(
      "the checkpoint script's lines (recorded, two attempts): the resume is kept apart from progress, a fresh start clears it")
  void resumeLine() {
    LogProgress p = new LogProgress();
    List<String> lines = fixture("checkpoint-resume.log").lines().toList();
    int resume = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(" resumes from ")) {
        resume = i;
      }
    }
    assertTrue(resume > 0, "the second attempt's resume line is recorded");
    for (int i = 0; i < resume; i++) {
      assertFalse(p.accept(lines.get(i), T0), lines.get(i));
      assertEquals(Optional.empty(), p.resumed(), "attempt 0 started fresh");
    }
    assertFalse(p.accept(lines.get(resume), T0.plusSeconds(1)), "not a progress line");
    Resumed r = p.resumed().orElseThrow();
    assertEquals(20L, r.step());
    assertEquals(Optional.empty(), p.current(), "no progress yet");
    p.acceptText("\u001B[0mstep 21/60 loss 0.5\n", T0.plusSeconds(2));
    assertEquals(21L, p.current().orElseThrow().step());
    assertEquals(Optional.of(r), p.resumed(), "kept beside the progress");
    p.accept(lines.stream().filter(l -> l.contains("starts fresh")).findFirst().orElseThrow(), T0);
    assertEquals(Optional.empty(), p.resumed(), "a fresh start clears it");
    p.accept("trainyard: attempt 3 something else", T0);
    assertEquals(Optional.empty(), p.resumed());
  }

  /** The world size rank 0 printed in fixture {@code name}, and whether a line was read. */
  static LogProgress read(String name) {
    LogProgress p = new LogProgress();
    p.acceptText(fixture(name), T0);
    return p;
  }

  @Test
  @DisplayName(
      "a recorded run that printed and trained nothing (minGPT-DDP without GPUs): read, no step, no"
          + " world size; a tqdm DDP run prints no world size")
  void readNothingTrained() {
    LogProgress zero = read("exit-zero.log");
    assertTrue(zero.read(), "a line was read");
    assertEquals(Optional.empty(), zero.current(), "and no step in it");
    assertEquals(0, zero.worldSize());
    assertEquals(0, read("tqdm-ddp.log").worldSize());
    assertTrue(read("tqdm-ddp.log").read());
  }

  @Test
  @DisplayName("read: only a line that is not blank and not over-long counts")
  void readLines() {
    LogProgress p = new LogProgress();
    assertFalse(p.read());
    p.accept("   ", T0);
    assertFalse(p.read(), "blank");
    p.accept("x".repeat(LogProgress.MAX_SEGMENT + 1), T0);
    assertFalse(p.read(), "too long to be a line a trainer printed for us");
    p.accept("loading data", T0);
    assertTrue(p.read());
  }

  @Test
  @DisplayName(
      "world size lines as the libraries' sources format them (recorded fixtures: see"
          + " scripts/record-progress-fixtures): Lightning's MEMBER and Starting with, Accelerate's"
          + " Num processes, a script's world_size; the largest is kept, a local world size is not one")
  void worldSizeFormats() {
    // Lightning 2.x, lightning/fabric/utilities/distributed.py _init_dist_connection:
    // f"Initializing
    // distributed: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}" and f"All
    // distributed processes registered. Starting with {world_size} processes\n";
    // accelerate/state.py PartialState.__repr__: f"Num processes: {self.num_processes}\n".
    LogProgress p = new LogProgress();
    p.accept("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", T0);
    assertEquals(4, p.worldSize());
    p = new LogProgress();
    p.accept("All distributed processes registered. Starting with 2 processes", T0);
    assertEquals(2, p.worldSize());
    p = new LogProgress();
    p.acceptText("Distributed environment: NO\nNum processes: 1\nProcess index: 0\n", T0);
    assertEquals(1, p.worldSize());
    p.accept("world_size=3", T0);
    assertEquals(3, p.worldSize());
    p.accept("WORLD SIZE: 2", T0);
    assertEquals(3, p.worldSize(), "a smaller one later does not lower it");
    p.accept("local world size 8", T0);
    p.accept("local_world_size=8", T0);
    assertEquals(3, p.worldSize(), "a node's own count is not the world");
    p.accept("world size " + "9".repeat(12), T0);
    assertEquals(3, p.worldSize(), "not a number of processes");
    assertFalse(p.accept("Num processes: 5", T0), "a world size is no progress");
    assertEquals(5, p.worldSize());
  }

  @Test
  @DisplayName(
      "the world size rank 0 printed, from recorded runs: Lightning DDP on 2 processes (MEMBER: 1/2,"
          + " Starting with 2 processes), Accelerate started with python (Num processes: 1), a"
          + " script's world_size=2 under torchrun and world_size=1 alone")
  void worldSizeRecorded() {
    assertEquals(2, read("lightning-ddp.log").worldSize());
    assertEquals(1, read("accelerate-alone.log").worldSize());
    assertTrue(read("accelerate-alone.log").current().isPresent(), "it trained, alone");
    assertEquals(2, read("world-ddp.log").worldSize());
    assertEquals(1, read("world-alone.log").worldSize());
  }
}
