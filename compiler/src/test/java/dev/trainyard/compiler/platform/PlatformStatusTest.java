package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * platform.yaml {@code status:} (forges, target URL) and {@code retention:}, through the real
 * loader and schema.
 */
class PlatformStatusTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private static final String BASE =
      """
      apiVersion: trainyard.dev/v1
      kind: Platform
      clusters: [{name: prod}]
      namespaces:
      - {name: team-a, cluster: prod, defaultQueue: q}
      - {name: team-b, cluster: prod, defaultQueue: q, retention: {failed: 2d}}
      queues:
        resourceFlavors: [{name: f}]
        clusterQueues: [{name: cq, flavors: [{name: f, quota: {cpu: "8"}}]}]
        localQueues: [{name: q, namespace: team-a, clusterQueue: cq}, {name: q, namespace: team-b, clusterQueue: cq}]
      """;

  private StageResult<Platform> load(String extra) throws Exception {
    Path file = temp.resolve("platform.yaml");
    Files.writeString(file, BASE + extra);
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(Optional.of(file), "platform.yaml");
  }

  @Test
  @DisplayName(
      "status: forges (source prefix, kind, API root, token Secret name/key) and the target URL bind as written")
  void binds() throws Exception {
    StageResult<Platform> r0 =
        load(
            """
        status:
          forges:
          - {source: github.com/acme, kind: github, api: https://api.github.com, token: {secret: forge-tokens, key: github}}
          - {source: gitlab.example, kind: gitlab, api: https://gitlab.example/api/v4, token: {secret: forge-tokens, key: gitlab}}
          targetUrl: "https://grafana.example/d/runs?c={cluster}&ns={namespace}&r={run}&js={jobset}&sha={commit}"
        """);
    Platform p = r0.value().orElseThrow(() -> new AssertionError(r0.diagnostics()));
    assertEquals(
        List.of(
            new Platform.ForgeRoute(
                "github.com/acme", "github", "https://api.github.com", "forge-tokens", "github"),
            new Platform.ForgeRoute(
                "gitlab.example",
                "gitlab",
                "https://gitlab.example/api/v4",
                "forge-tokens",
                "gitlab")),
        p.status().forges());
    assertEquals(
        "https://grafana.example/d/runs?c={cluster}&ns={namespace}&r={run}&js={jobset}&sha={commit}",
        p.status().targetUrl());
  }

  @Test
  @DisplayName(
      "status.stallAfter binds as a duration (1h30m); absent it is empty; 10 minutes written as 90 is refused by the schema")
  void stallAfter() throws Exception {
    Platform p = load("status: {stallAfter: 1h30m}\n").value().orElseThrow();
    assertEquals(Optional.of(Duration.ofMinutes(90)), p.status().stallAfter());
    assertEquals(
        Optional.empty(),
        load("status: {forges: []}\n").value().orElseThrow().status().stallAfter());
    assertTrue(load("status: {stallAfter: \"90\"}\n").failed());
    assertTrue(load("status: {stallAfter: 0m}\n").failed());
  }

  @Test
  @DisplayName(
      "status.progress binds stallAfter, every and step; each absent part is its default (30m, 30m, 10); a step outside 1-100 is refused")
  void progress() throws Exception {
    Platform.ProgressSettings p =
        load("status: {progress: {stallAfter: 45m, every: 1h, step: 5}}\n")
            .value()
            .orElseThrow()
            .status()
            .progress();
    assertEquals(new Platform.ProgressSettings(Duration.ofMinutes(45), Duration.ofHours(1), 5), p);
    assertEquals(
        Platform.ProgressSettings.DEFAULT,
        load("status: {forges: []}\n").value().orElseThrow().status().progress());
    assertEquals(
        new Platform.ProgressSettings(Duration.ofMinutes(30), Duration.ofMinutes(30), 20),
        load("status: {progress: {step: 20}}\n").value().orElseThrow().status().progress());
    assertTrue(load("status: {progress: {step: 0}}\n").failed());
    assertTrue(load("status: {progress: {step: 101}}\n").failed());
    assertTrue(load("status: {progress: {every: soon}}\n").failed());
    assertTrue(load("status: {progress: {stallAfter: 876001h}}\n").failed());
    assertThrows(
        IllegalArgumentException.class,
        () -> new Platform.ProgressSettings(Duration.ZERO, Duration.ZERO, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Platform.ProgressSettings(Duration.ZERO, Duration.ZERO, 101));
  }

  @Test
  @DisplayName(
      "status.progress binds failStalledAfter and untrained (success by default, failure); an"
          + " unknown word is refused; failStalledAfter below stallAfter is an error at its line")
  void failLimits() throws Exception {
    Platform.ProgressSettings p =
        load("status: {progress: {stallAfter: 45m, failStalledAfter: 2h, untrained: failure}}\n")
            .value()
            .orElseThrow()
            .status()
            .progress();
    assertEquals(Optional.of(Duration.ofHours(2)), p.failStalledAfter());
    assertTrue(p.failUntrained());
    assertFalse(
        load("status: {progress: {untrained: success}}\n")
            .value()
            .orElseThrow()
            .status()
            .progress()
            .failUntrained());
    assertEquals(Optional.empty(), Platform.ProgressSettings.DEFAULT.failStalledAfter());
    assertFalse(Platform.ProgressSettings.DEFAULT.failUntrained());
    assertTrue(load("status: {progress: {untrained: maybe}}\n").failed());
    assertTrue(load("status: {progress: {failStalledAfter: 876001h}}\n").failed());
    StageResult<Platform> r = load("status: {progress: {stallAfter: 1h, failStalledAfter: 45m}}\n");
    assertTrue(r.failed());
    assertEquals(
        List.of(
            "/status/progress/failStalledAfter|11|`status.progress.failStalledAfter` (45m) is"
                + " shorter than `status.progress.stallAfter` (60m): a run is failed for a stall"
                + " only after it was called stalled"),
        r.diagnostics().stream()
            .map(d -> d.pointer() + "|" + d.location().line() + "|" + d.message())
            .toList());
    assertEquals(DiagnosticCode.INVALID_PLATFORM, r.diagnostics().get(0).code());
    assertEquals(
        "make failStalledAfter at least stallAfter, e.g. failStalledAfter: 2h",
        r.diagnostics().get(0).hint());
    assertFalse(load("status: {progress: {failStalledAfter: 30m}}\n").failed(), "equal is fine");
  }

  @Test
  @DisplayName(
      "a duration over 36500d (the schema's pattern admits it) is an error at its line, not the default without a word")
  void durationOverLimit() throws Exception {
    StageResult<Platform> r =
        load("status: {stallAfter: 876001h}\nretention: {succeeded: 36500d, failed: 36501d}\n");
    assertTrue(r.failed());
    assertEquals(
        List.of(
            "/status/stallAfter|11|`status.stallAfter` is 876001h, longer than the 36500d (100 years) a duration may be",
            "/retention/failed|12|`retention.failed` is 36501d, longer than the 36500d (100 years) a duration may be"),
        r.diagnostics().stream()
            .map(d -> d.pointer() + "|" + d.location().line() + "|" + d.message())
            .toList());
    assertEquals(DiagnosticCode.INVALID_PLATFORM, r.diagnostics().get(0).code());
    WORDING.approve(r.diagnostics().get(0).hint());
    StageResult<Platform> ns =
        loadText(BASE.replace("retention: {failed: 2d}", "retention: {failed: 99999999999h}"));
    assertEquals(
        List.of("/namespaces/1/retention/failed"),
        ns.diagnostics().stream().map(Diagnostic::pointer).toList());
    StageResult<Platform> limit = load("status: {stallAfter: 876000h}\n");
    assertEquals(
        Optional.of(Duration.ofDays(36500)),
        limit
            .value()
            .orElseThrow(() -> new AssertionError(limit.diagnostics()))
            .status()
            .stallAfter(),
        "the limit itself is allowed");
  }

  private StageResult<Platform> loadText(String text) throws Exception {
    Path file = Files.writeString(temp.resolve("platform.yaml"), text);
    return new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
        .load(Optional.of(file), "platform.yaml");
  }

  @Test
  @DisplayName("without status: no forges and no link; without retention: every run is kept")
  void absent() throws Exception {
    Platform p = load("").value().orElseThrow();
    assertEquals(Platform.StatusSettings.NONE, p.status());
    assertEquals(Platform.Retention.KEEP, p.retention("prod", "team-a"));
    assertEquals(Platform.Retention.KEEP, p.retention("prod", "unknown"));
  }

  @Test
  @DisplayName(
      "retention: the top level applies everywhere, a namespace overrides the states it sets, state by state")
  void retention() throws Exception {
    Platform p = load("retention: {succeeded: 7d, failed: 1d12h}\n").value().orElseThrow();
    assertEquals(
        new Platform.Retention(Optional.of(Duration.ofDays(7)), Optional.of(Duration.ofHours(36))),
        p.retention("prod", "team-a"));
    assertEquals(
        new Platform.Retention(Optional.of(Duration.ofDays(7)), Optional.of(Duration.ofDays(2))),
        p.retention("prod", "team-b"));
    assertEquals(
        p.retention(),
        p.retention("other-cluster", "team-b"),
        "a namespace of another cluster is not team-b of prod");
  }

  @Test
  @DisplayName(
      "an unknown target URL placeholder is E304 at the targetUrl line, naming it and the known ones")
  void unknownPlaceholder() throws Exception {
    StageResult<Platform> r =
        load("status:\n  targetUrl: https://g.example/d?pod={pod}&run={run}&zone={zone}\n");
    assertTrue(r.failed());
    Diagnostic d = only(r);
    WORDING.approve(d.message());
    assertEquals(DiagnosticCode.INVALID_PLATFORM, d.code());
    assertEquals("/status/targetUrl", d.pointer());
    assertEquals(12, d.location().line(), d.toString());
    assertEquals("platform.yaml", d.location().file());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("an unbalanced brace in the target URL is E304 too")
  void unbalanced() throws Exception {
    WORDING.approve(only(load("status: {targetUrl: \"https://g.example/{run\"}\n")).message());
    WORDING.approve(only(load("status: {targetUrl: \"https://g.example/run}\"}\n")).message());
  }

  @Test
  @DisplayName(
      "two forges with the same source prefix (case and trailing slash aside) are E304 at the second")
  void duplicateSource() throws Exception {
    Diagnostic d =
        only(
            load(
                """
        status:
          forges:
          - {source: github.com, kind: github, api: https://api.github.com, token: {secret: t, key: a}}
          - {source: GitHub.com/, kind: github, api: https://api.github.com, token: {secret: t, key: b}}
        """));
    assertEquals(DiagnosticCode.INVALID_PLATFORM, d.code());
    assertEquals("/status/forges/1/source", d.pointer());
    WORDING.approve(d.message());
  }

  @Test
  @DisplayName(
      "the schema refuses a forge kind it does not know, a token given inline, a relative API and a retention of 0 or in weeks")
  void schema() throws Exception {
    for (String bad :
        List.of(
            "status: {forges: [{source: x.org, kind: bitbucket, api: https://x.org, token: {secret: t, key: k}}]}\n",
            "status: {forges: [{source: x.org, kind: github, api: https://x.org, token: ghp_abc}]}\n",
            "status: {forges: [{source: x.org, kind: github, api: /api, token: {secret: t, key: k}}]}\n",
            "status: {forges: [{source: https://x.org, kind: github, api: https://x.org, token: {secret: t, key: k}}]}\n",
            "status: {forges: [{source: \"x.org:3000\", kind: github, api: https://x.org, token: {secret: t, key: k}}]}\n",
            "status: {targetUrl: grafana/d}\n",
            "retention: {succeeded: 0d}\n",
            "retention: {succeeded: 2w}\n",
            "retention: {running: 1d}\n")) {
      StageResult<Platform> r = load(bad);
      assertTrue(r.failed(), bad);
      assertFalse(
          r.diagnostics().toString().contains("ghp_abc"),
          "no token value in a diagnostic: " + r.diagnostics());
    }
  }

  @Test
  @DisplayName(
      "a token written inline where the Secret reference belongs is refused without showing it")
  void inlineToken() throws Exception {
    Diagnostic d =
        only(
            load(
                "status: {forges: [{source: x.org, kind: github, api: https://x.org, token: ghp_abc}]}\n"));
    WORDING.approve(d.message());
  }

  @Test
  @DisplayName("normalised source prefixes: host lower-cased, path kept, trailing slashes dropped")
  void normalised() {
    assertEquals("github.com/Acme", PlatformStatusChecks.normalised("GitHub.COM/Acme//"));
    assertEquals("gitea.example", PlatformStatusChecks.normalised("Gitea.Example/"));
  }

  private static Diagnostic only(StageResult<Platform> r) {
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    return r.diagnostics().get(0);
  }
}
