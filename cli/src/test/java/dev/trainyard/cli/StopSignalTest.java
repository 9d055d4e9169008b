package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link StopSignal} in this JVM: the words and exit code per noted signal, and that {@code watch}
 * puts its handler in front of the JVM's for SIGINT, SIGTERM and SIGHUP where the JVM handles them.
 * The handler's run on a real signal (the JVM then ends) is {@code InterruptTest}'s, in a JVM of
 * its own.
 */
class StopSignalTest {
  @AfterEach
  void forget() {
    StopSignal.note(null);
  }

  @Test
  @DisplayName(
      "SIGINT reads Ctrl-C and exits 130, SIGTERM 143, SIGHUP 129; nothing noted: no words, 130")
  void wordsAndExitCodes() {
    StopSignal.note(null);
    assertEquals(Optional.empty(), StopSignal.words());
    assertEquals(130, StopSignal.exitCode());
    StopSignal.note("INT");
    assertEquals(Optional.of("Ctrl-C"), StopSignal.words());
    assertEquals(130, StopSignal.exitCode());
    StopSignal.note("TERM");
    assertEquals(Optional.of("SIGTERM"), StopSignal.words());
    assertEquals(143, StopSignal.exitCode());
    StopSignal.note("HUP");
    assertEquals(Optional.of("SIGHUP"), StopSignal.words());
    assertEquals(129, StopSignal.exitCode());
  }

  @Test
  @DisplayName(
      "watch puts a StopSignal handler in front of the JVM's own for each signal the JVM handles, once")
  void watchChainsTheJvmHandlers() throws Exception {
    Class<?> signalType = Class.forName("sun.misc.Signal");
    Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
    var handle = signalType.getMethod("handle", signalType, handlerType);
    StopSignal.watch();
    StopSignal.watch();
    int chained = 0;
    for (String name : new String[] {"INT", "TERM", "HUP"}) {
      Object signal = signalType.getConstructor(String.class).newInstance(name);
      // Reading the handler means setting one: put it straight back.
      Object current = handle.invoke(null, signal, handlerType.getField("SIG_DFL").get(null));
      handle.invoke(null, signal, current);
      if (current.toString().startsWith("StopSignal(")) {
        chained++;
        assertEquals("StopSignal(" + name + ")", current.toString());
        assertEquals(current, current);
        assertNotEquals(current, new Object());
        assertEquals(System.identityHashCode(current), current.hashCode());
      }
    }
    // A suite started from a script may inherit SIGINT (and SIGHUP) ignored; SIGTERM the JVM
    // always handles.
    assertTrue(chained >= 1, "StopSignal handlers: " + chained);
  }
}
