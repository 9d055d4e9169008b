package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.testing.TwoClusterPlatform;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * --target-cluster and --namespace checked once against platform.yaml: a value it does not define
 * is refused naming the flag.
 */
class TargetFlagsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  Path platform;

  @BeforeEach
  void writePlatform() throws Exception {
    platform = Files.writeString(temp.resolve("platform.yaml"), TwoClusterPlatform.TEXT);
  }

  private Optional<TargetFlags.Refusal> check(
      Optional<String> cluster, Optional<String> namespace) {
    return TargetFlags.check(Optional.of(platform), "platform.yaml", cluster, namespace);
  }

  @Test
  @DisplayName(
      "an unknown cluster is refused naming --target-cluster, with the platform's clusters as the hint")
  void unknownCluster() {
    assertEquals(
        Optional.of(
            new TargetFlags.Refusal(
                "--target-cluster",
                "--target-cluster nosuch: no such cluster in platform.yaml",
                "clusters: local, prod")),
        check(Optional.of("nosuch"), Optional.of("team-a")));
  }

  @Test
  @DisplayName(
      "a namespace of another cluster is refused naming --namespace and the target cluster, with that cluster's namespaces")
  void namespaceOfOtherCluster() {
    assertEquals(
        Optional.of(
            new TargetFlags.Refusal(
                "--namespace",
                "--namespace team-a: no such namespace of cluster prod in platform.yaml",
                "namespaces of prod: team-b")),
        check(Optional.of("prod"), Optional.of("team-a")));
    assertEquals(
        Optional.of(
            new TargetFlags.Refusal(
                "--namespace",
                "--namespace team-b: no such namespace of cluster local in platform.yaml",
                "namespaces of local: team-a")),
        check(Optional.empty(), Optional.of("team-b")),
        "without --target-cluster: the platform's first cluster");
  }

  @Test
  @DisplayName("values the platform defines pass, each flag alone or both together")
  void known() {
    assertEquals(Optional.empty(), check(Optional.of("prod"), Optional.of("team-b")));
    assertEquals(Optional.empty(), check(Optional.of("prod"), Optional.empty()));
    assertEquals(Optional.empty(), check(Optional.empty(), Optional.of("team-a")));
    assertEquals(Optional.empty(), check(Optional.empty(), Optional.empty()));
  }

  @Test
  @DisplayName(
      "a platform.yaml that does not load refuses no flag: the compile reports it at its lines")
  void brokenPlatformLeftToCompile() throws Exception {
    Files.writeString(
        platform, TwoClusterPlatform.with("defaultQueue: qb", "defaultQueue: nosuch"));
    assertEquals(Optional.empty(), check(Optional.of("nosuch"), Optional.empty()));
    Files.writeString(platform, "kind: [\n");
    assertEquals(Optional.empty(), check(Optional.of("nosuch"), Optional.of("nosuch")));
  }

  @Test
  @DisplayName(
      "from a request: the platform is named by its display name when it is a copy, else by its path; the embedded default has cluster local")
  void fromRequest() {
    CompileRequest copy =
        CompileRequest.builder(Path.of("train.yaml"))
            .displayPath("train.yaml")
            .platformFile(platform)
            .cluster("nosuch")
            .platformDisplay("platform.yaml (gitops main)")
            .build();
    WORDING.approve(TargetFlags.check(copy).orElseThrow().message());
    CompileRequest relative =
        CompileRequest.builder(Path.of("train.yaml"))
            .displayPath("train.yaml")
            .platformFile(Path.of("conf/platform.yaml"))
            .namespace("nosuch")
            .build();
    assertEquals(
        Optional.empty(),
        TargetFlags.check(relative),
        "conf/platform.yaml does not exist: left to the compile");
    CompileRequest embedded = CompileRequest.of(Path.of("train.yaml")).withAttempt(1);
    assertEquals(
        Optional.empty(),
        TargetFlags.check(
            CompileRequest.builder(embedded.trainYaml())
                .displayPath("train.yaml")
                .cluster("local")
                .build()));
    assertEquals(
        "--target-cluster prod: no such cluster in <embedded default platform>",
        TargetFlags.check(
                CompileRequest.builder(embedded.trainYaml())
                    .displayPath("train.yaml")
                    .cluster("prod")
                    .build())
            .orElseThrow()
            .message());
  }
}
