package dev.trainyard.controller.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The failing rank's error line, from recorded logs ({@code progress/fail-ddp.log}, {@code
 * killed.log}).
 */
class ErrorLineTest {

  @Test
  @DisplayName(
      "torchrun: the root-cause rank's exception, not torchrun's ChildFailedError nor rank 1's broken pipe")
  void torchrun() {
    assertEquals(
        Optional.of("RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x7 and 8x1)"),
        ErrorLine.of(LogProgressTest.fixture("fail-ddp.log")));
  }

  @Test
  @DisplayName("a process the kernel killed, as bash reports it: Killed")
  void killed() {
    assertEquals(Optional.of("Killed"), ErrorLine.of(LogProgressTest.fixture("killed.log")));
  }

  @Test
  @DisplayName(
      "without a Root Cause section the last exception; nothing that looks like one: empty; long lines cut")
  void plain() {
    assertEquals(
        Optional.of("ValueError: bad"),
        ErrorLine.of("Traceback (most recent call last):\n  x\nKeyError: 'a'\nValueError: bad\n"));
    assertEquals(Optional.empty(), ErrorLine.of("step 1/2\nall good\nError:\n"));
    String longLine = ErrorLine.of("OSError: " + "x".repeat(300)).orElseThrow();
    assertEquals(ErrorLine.MAX, longLine.codePointCount(0, longLine.length()));
    assertEquals(
        Optional.of("RuntimeError: second"),
        ErrorLine.of(
            "[rank1]: RuntimeError: first\n[rank0]: RuntimeError: second\nRoot Cause (first observed failure):\n[0]:\n  rank      : 0 (local_rank: 0)\n"));
    assertEquals(
        Optional.of("RuntimeError: first"),
        ErrorLine.of(
            "[rank1]: RuntimeError: first\n[rank0]: RuntimeError: second\nRoot Cause (first observed failure):\n[1]:\n  rank      : 1 (local_rank: 1)\n"));
  }

  @Test
  @DisplayName("into a failure description: before the attempt, the error line cut to fit")
  void into() {
    assertEquals(
        "failed (user error): exit 1 on node n0: ValueError: bad, attempt 1 of 4",
        ErrorLine.into(
            "failed (user error): exit 1 on node n0, attempt 1 of 4", "ValueError: bad"));
    assertEquals("no attempt: Killed", ErrorLine.into("no attempt", "Killed"));
    String d =
        ErrorLine.into(
            "failed (user error): command exited with code 1 in container node on node kwok-0, attempt 1 of 4",
            "RuntimeError: " + "y".repeat(200));
    assertEquals(Description.MAX, d.codePointCount(0, d.length()));
    assertEquals(true, d.endsWith("…, attempt 1 of 4"), d);
  }
}
