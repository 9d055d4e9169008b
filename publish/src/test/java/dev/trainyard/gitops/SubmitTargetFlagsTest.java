package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Submitter} refuses a {@code --target-cluster} or {@code --namespace} the platform does not
 * define as one usage error before any train.yaml is compiled (the CLI's view: {@code
 * cli.TargetFlagsCommandTest}).
 */
class SubmitTargetFlagsTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "a --target-cluster or --namespace the platform lacks is one usage error naming the flag; nothing is pushed")
  void unknownTargetRefused() throws Exception {
    GitOpsFixture fixture = new GitOpsFixture(temp, "run: torchrun train.py\n");
    for (List<Optional<String>> flags :
        List.of(
            List.of(Optional.of("nosuch"), Optional.<String>empty()),
            List.of(Optional.<String>empty(), Optional.of("nosuch")))) {
      SubmitRequest request =
          new SubmitRequest(
              List.of(fixture.project.trainYaml()),
              fixture.location(),
              "main",
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              Optional.empty(),
              flags.get(0),
              flags.get(1),
              false,
              false);
      GitOpsException e =
          assertThrows(
              GitOpsException.class,
              () -> fixture.submitter(GitOpsFixture.T0).submit(request),
              flags.toString());
      assertTrue(e.isUsage(), e.getMessage());
      String flag = flags.get(0).isPresent() ? "--target-cluster" : "--namespace";
      assertTrue(e.getMessage().startsWith(flag + " nosuch: "), e.getMessage());
      assertEquals("", GitCli.git(fixture.bare, "branch", "--list").strip(), "nothing pushed");
    }
  }
}
