package dev.trainyard.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Which signal is stopping the JVM, for a shutdown hook that must say so ({@code stopped
 * (SIGTERM)}, not {@code stopped (Ctrl-C)}): a shutdown hook is not told. {@link #watch()} puts a
 * handler in front of the JVM's own for SIGINT, SIGTERM and SIGHUP that notes the signal's name and
 * then calls the JVM's handler, which runs the hooks and exits with 128 + the signal's number, as
 * before. It uses {@code sun.misc.Signal} (module {@code jdk.unsupported}, exported for this use,
 * JEP 260) through reflection, since javac warns on every direct use and the build fails on
 * warnings; a signal the JVM does not handle (ignored when it started) is left alone.
 */
final class StopSignal {
  private static final AtomicReference<String> LAST = new AtomicReference<>();
  private static boolean watching;

  private StopSignal() {}

  /** Starts noting SIGINT, SIGTERM and SIGHUP (once per JVM; later calls do nothing). */
  static synchronized void watch() {
    if (watching) {
      return;
    }
    watching = true;
    for (String name : new String[] {"INT", "TERM", "HUP"}) {
      chain(name);
    }
  }

  /**
   * The words for the signal that stops the JVM: {@code Ctrl-C} for SIGINT, else {@code SIGTERM} or
   * {@code SIGHUP}; empty when none was noted (the JVM ends for another reason).
   */
  static Optional<String> words() {
    return Optional.ofNullable(LAST.get()).map(n -> n.equals("INT") ? "Ctrl-C" : "SIG" + n);
  }

  /** The exit code a shell reports for the noted signal: 130, 143, 129; 130 when none. */
  static int exitCode() {
    String n = LAST.get();
    return n == null || n.equals("INT") ? 130 : n.equals("TERM") ? 143 : 129;
  }

  /** For tests: as if {@code name} (INT, TERM, HUP) had arrived. */
  static void note(String name) {
    LAST.set(name);
  }

  private static void chain(String name) {
    try {
      Class<?> signalType = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Object signal = signalType.getConstructor(String.class).newInstance(name);
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      Method call = handlerType.getMethod("handle", signalType);
      Object ignore = handlerType.getField("SIG_IGN").get(null);
      Object dfl = handlerType.getField("SIG_DFL").get(null);
      AtomicReference<Object> previous = new AtomicReference<>();
      Object ours =
          Proxy.newProxyInstance(
              StopSignal.class.getClassLoader(),
              new Class<?>[] {handlerType},
              (proxy, method, args) -> {
                if (method.getName().equals("handle")) {
                  LAST.compareAndSet(null, name);
                  try {
                    call.invoke(previous.get(), args[0]);
                  } catch (ReflectiveOperationException | RuntimeException e) {
                    // The JVM's handler would not run: end as it does (hooks, then 128 + n).
                    Runtime.getRuntime().exit(exitCode());
                  }
                  return null;
                }
                if (method.getName().equals("equals")) {
                  return proxy == args[0];
                }
                return method.getName().equals("hashCode")
                    ? System.identityHashCode(proxy)
                    : "StopSignal(" + name + ")";
              });
      Object before = handle.invoke(null, signal, ours);
      previous.set(before);
      if (before == ignore
          || before == dfl
          || before.getClass().getName().endsWith("NativeSignalHandler")) {
        // Not the JVM's handler (ignored at start, or none): put it back untouched.
        handle.invoke(null, signal, before);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // No sun.misc.Signal here, or the JVM refuses this signal: the words stay Ctrl-C.
    }
  }
}
