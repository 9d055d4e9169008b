package dev.trainyard.gitops;

import dev.trainyard.compiler.Compiler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Compiles the train.yaml files of one submit or preview on several threads, each with a {@link
 * Compiler} of its own (a compiler keeps per-call state: open source repositories, the last
 * platform.yaml), and hands the results back in input order, so everything after the compile reads
 * them exactly as a sequential loop would. A 500-job preview compiled one file after another on a
 * 2-core machine (issue #24).
 *
 * <pre>
 * List&lt;CompileResult&gt; results =
 *     new CompileWorkers(2).map(trainYamls, () -&gt; new Compiler(secrets), (c, t) -&gt; c.compile(...));
 * </pre>
 */
final class CompileWorkers {
  /** Below this many inputs a second thread costs more than it saves (a JVM-cold compile). */
  static final int PARALLEL_FROM = 4;

  private final int threads;

  /**
   * @param threads at most this many compile threads (1: on the calling thread only)
   */
  CompileWorkers(int threads) {
    this.threads = Math.max(1, threads);
  }

  /** As many threads as the machine has processors. */
  static CompileWorkers available() {
    return new CompileWorkers(Runtime.getRuntime().availableProcessors());
  }

  /**
   * {@code work} applied to each input, results in input order. Each thread makes one compiler with
   * {@code compilers} and closes it when done. A {@link RuntimeException} or {@link Error} of any
   * call is rethrown here after every thread has stopped (the remaining inputs are not started).
   */
  <I, T> List<T> map(
      List<I> inputs, Supplier<Compiler> compilers, BiFunction<Compiler, I, T> work) {
    int count = inputs.size() < PARALLEL_FROM ? 1 : Math.min(threads, inputs.size());
    Object[] results = new Object[inputs.size()];
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Runnable worker =
        () -> {
          try (Compiler compiler = compilers.get()) {
            for (int i = next.getAndIncrement();
                i < inputs.size() && failed.get() == null;
                i = next.getAndIncrement()) {
              results[i] = work.apply(compiler, inputs.get(i));
            }
          } catch (RuntimeException | Error e) {
            failed.compareAndSet(null, e);
          }
        };
    List<Thread> started = new ArrayList<>();
    for (int t = 1; t < count; t++) {
      Thread thread = new Thread(worker, "trainyard-compile-" + t);
      thread.setDaemon(true);
      thread.start();
      started.add(thread);
    }
    worker.run();
    joinAll(started);
    Throwable e = failed.get();
    if (e instanceof RuntimeException r) {
      throw r;
    }
    if (e instanceof Error err) {
      throw err;
    }
    List<T> out = new ArrayList<>(results.length);
    for (Object r : results) {
      @SuppressWarnings("unchecked")
      T t = (T) r;
      out.add(t);
    }
    return out;
  }

  private static void joinAll(List<Thread> threads) {
    boolean interrupted = false;
    for (Thread t : threads) {
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true; // finish the join: the results array is still being written
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
