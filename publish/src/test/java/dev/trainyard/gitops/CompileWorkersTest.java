package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submit compiles its train.yaml files on several threads ({@link CompileWorkers}); what it
 * commits must be byte for byte what one thread commits (issue #24).
 */
class CompileWorkersTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "24 train.yaml files (torch, JAX, plain; 1 to 4 nodes) submitted on 4 compile threads commit the same tree, byte for byte, as on 1")
  void parallelSubmitIsSequentialSubmit() throws Exception {
    String[] runtimes = {"torch", "jax", "plain"};
    Map<String, String> extra = new LinkedHashMap<>();
    for (int i = 1; i < 24; i++) {
      String text =
          "runtime: "
              + runtimes[i % 3]
              + "\nrun: python train.py --job "
              + i
              + "\nnodes: "
              + (1 + i % 4)
              + "\n";
      extra.put("../j" + String.format("%02d", i) + "/train.yaml", text);
    }
    TrainProject project =
        TrainProject.create(temp, "jobs/j00", "run: torchrun train.py\nnodes: 2\n", extra);
    List<Path> trainYamls =
        IntStream.range(0, 24)
            .mapToObj(
                i -> project.root().resolve("jobs/j" + String.format("%02d", i) + "/train.yaml"))
            .toList();
    String one = submitTree(trainYamls, 1, "one");
    String four = submitTree(trainYamls, 4, "four");
    assertEquals(one, four);
    assertEquals(
        24,
        GitCli.git(temp.resolve("four.git"), "ls-tree", "-d", "main:clusters/local/default")
            .lines()
            .filter(l -> !l.endsWith("_queues"))
            .count());
  }

  /** Submits into a fresh bare repo; its main's tree id (equal ids: equal bytes in every file). */
  private String submitTree(List<Path> trainYamls, int threads, String name) throws Exception {
    Path bare = GitCli.bare(temp.resolve(name + ".git"));
    Submitter submitter =
        new Submitter(
            temp.resolve("cache-" + name),
            Map.of(),
            Clock.fixed(GitOpsFixture.T0, ZoneOffset.UTC),
            new PublishProgress(),
            new CompileWorkers(threads));
    SubmitRequest request =
        new SubmitRequest(
            trainYamls,
            GitOpsLocation.parse(bare.toString(), Path.of("")),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    SubmitResult result = submitter.submit(request);
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    assertEquals(24, result.newRuns().size());
    return GitCli.git(bare, "rev-parse", "main^{tree}").strip();
  }

  @Test
  @DisplayName(
      "results come back in input order; each thread has its own compiler, closed at the end; 3 inputs stay on the calling thread")
  void orderAndCompilers() {
    Set<Compiler> made = ConcurrentHashMap.newKeySet();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<Integer> inputs = IntStream.range(0, 200).boxed().toList();
    List<Integer> out =
        new CompileWorkers(3)
            .map(
                inputs,
                () -> {
                  Compiler c = new Compiler(SshSecretProvider.system());
                  made.add(c);
                  return c;
                },
                (c, i) -> {
                  assertTrue(made.contains(c));
                  threads.add(Thread.currentThread().getName());
                  return i * 2;
                });
    assertEquals(inputs.stream().map(i -> i * 2).toList(), out);
    assertTrue(made.size() <= 3 && made.size() >= 1, String.valueOf(made.size()));
    List<String> small = new ArrayList<>();
    new CompileWorkers(8)
        .map(
            List.of(1, 2, 3),
            () -> new Compiler(SshSecretProvider.system()),
            (c, i) -> small.add(Thread.currentThread().getName()));
    assertEquals(List.of(Thread.currentThread().getName()).get(0), small.get(0));
    assertTrue(
        small.stream().allMatch(n -> n.equals(Thread.currentThread().getName())), small.toString());
  }

  @Test
  @DisplayName(
      "4 inputs on 2 threads make 2 compilers, 3 inputs make 1; an Error is rethrown as it is; an interrupt during the join is kept")
  void threadsErrorsInterrupts() {
    for (int n : new int[] {3, 4}) {
      Set<Compiler> made = ConcurrentHashMap.newKeySet();
      List<Integer> out =
          new CompileWorkers(2)
              .map(
                  IntStream.range(0, n).boxed().toList(),
                  () -> {
                    Compiler c = new Compiler(SshSecretProvider.system());
                    made.add(c);
                    return c;
                  },
                  (c, i) -> i + 1);
      assertEquals(IntStream.range(1, n + 1).boxed().toList(), out);
      assertEquals(n < CompileWorkers.PARALLEL_FROM ? 1 : 2, made.size(), "inputs " + n);
    }
    AssertionError error = new AssertionError("bug");
    assertSame(
        error,
        assertThrows(
            AssertionError.class,
            () ->
                new CompileWorkers(2)
                    .map(
                        IntStream.range(0, 8).boxed().toList(),
                        () -> new Compiler(SshSecretProvider.system()),
                        (c, i) -> {
                          throw error;
                        })));
    Thread.currentThread().interrupt();
    List<Integer> done =
        new CompileWorkers(2)
            .map(
                IntStream.range(0, 8).boxed().toList(),
                () -> new Compiler(SshSecretProvider.system()),
                (c, i) -> {
                  if (!Thread.currentThread().getName().startsWith("trainyard-compile")) {
                    return i;
                  }
                  try {
                    Thread.sleep(200); // the caller is still joining this thread
                  } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                  return i;
                });
    assertTrue(Thread.interrupted(), "the caller's interrupt was lost");
    assertEquals(IntStream.range(0, 8).boxed().toList(), done);
    assertEquals(
        List.of(1, 2, 3, 4),
        CompileWorkers.available()
            .map(List.of(1, 2, 3, 4), () -> new Compiler(SshSecretProvider.system()), (c, i) -> i));
  }

  @Test
  @DisplayName("an exception of one compile is rethrown once every thread has stopped")
  void failurePropagates() {
    IllegalStateException boom = new IllegalStateException("boom");
    IllegalStateException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                new CompileWorkers(2)
                    .map(
                        IntStream.range(0, 50).boxed().toList(),
                        () -> new Compiler(SshSecretProvider.system()),
                        (c, i) -> {
                          if (i == 17) {
                            throw boom;
                          }
                          return i;
                        }));
    assertSame(boom, thrown);
  }
}
