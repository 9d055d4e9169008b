package dev.trainyard.gitops;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A submit in its own JVM, for {@link ConcurrentSubmitTest}: {@code SubmitProcess TRAIN_YAML
 * GITOPS_URL CACHE_DIR}. Prints the run name and the number of attempts; exit 0 when the run was
 * pushed, 1 otherwise.
 */
public final class SubmitProcess {
  private SubmitProcess() {}

  public static void main(String[] args) throws Exception {
    SubmitRequest request =
        new SubmitRequest(
            List.of(Path.of(args[0])),
            GitOpsLocation.parse(args[1], Path.of("")),
            "main",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            false);
    SubmitResult result =
        new Submitter(Path.of(args[2]), Map.of(), Clock.systemUTC()).submit(request);
    System.out.println(result.runs().get(0).folder().run() + " " + result.attempts());
    System.exit(result.pushed() ? 0 : 1);
  }
}
