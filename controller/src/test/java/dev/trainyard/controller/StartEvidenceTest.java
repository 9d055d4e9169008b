package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.ReconcilerTest.FakeSource;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.Failure;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.WorkloadSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class StartEvidenceTest {

  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final RunKey KEY = new RunKey("team-a", "r");
  final FakeSource cache = new FakeSource();
  final StartEvidence source = new StartEvidence(cache);

  void show(Instant created, boolean suspended, PodSnapshot... pods) {
    cache.provenance.put(
        KEY, new RunProvenance("https://github.com/acme/llm.git", "abc", "p", "dev", "r"));
    cache.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot("team-a", "r", created, suspended, 1, 0, 0, "q", List.of()),
            List.of(pods),
            Optional.of(
                new WorkloadSnapshot(
                    "cq",
                    List.of(new ConditionSnapshot("Evicted", true, "PodsReadyTimeout", "", T0)))),
            T0));
  }

  static PodSnapshot pulling() {
    return new PodSnapshot(
        "p0",
        "n0",
        "Pending",
        "",
        0,
        false,
        false,
        null,
        List.of(),
        List.of(
            new ContainerSnapshot(
                "node",
                "ghcr.io/acme/x:1",
                ContainerSnapshot.Status.WAITING,
                "ErrImagePull",
                "",
                null)),
        List.of());
  }

  static PodSnapshot running() {
    return new PodSnapshot(
        "p0",
        "n0",
        "Running",
        "",
        0,
        true,
        false,
        T0,
        List.of(),
        List.of(ContainerSnapshot.running("node")),
        List.of());
  }

  Optional<String> earlier() {
    return source.observe(KEY).orElseThrow().earlier().map(Failure::what);
  }

  @Test
  @DisplayName(
      "what blocked the pods is handed to later observations after Kueue's eviction deleted them")
  void remembersAcrossEviction() {
    show(T0, false, pulling());
    assertEquals(Optional.of("cannot pull image ghcr.io/acme/x:1"), earlier());
    show(T0, true);
    assertEquals(
        Optional.of("cannot pull image ghcr.io/acme/x:1"),
        earlier(),
        "the pods are gone, the evidence is not");
    assertEquals(1, source.size());
  }

  @Test
  @DisplayName(
      "forgotten once every pod started, for a re-created JobSet (another creation time), and with the run")
  void forgets() {
    show(T0, false, pulling());
    earlier();
    show(T0, false, running());
    assertEquals(
        Optional.empty(), earlier(), "an old pull error explains nothing once the run started");
    show(T0, false, pulling());
    earlier();
    show(T0.plusSeconds(60), true);
    assertEquals(Optional.empty(), earlier(), "a JobSet re-created under the name is another run");
    show(T0, false, pulling());
    earlier();
    source.forget(KEY);
    assertEquals(0, source.size());
    assertEquals(List.of(KEY), cache.forgotten);
  }

  @Test
  @DisplayName(
      "a deleted run's last observation carries what was remembered; provenance and absence pass through")
  void deleted() {
    show(T0, false, pulling());
    earlier();
    cache.delete(KEY);
    assertTrue(source.observe(KEY).isEmpty());
    assertEquals(
        Optional.of("cannot pull image ghcr.io/acme/x:1"),
        source.deleted(KEY).orElseThrow().last().earlier().map(Failure::what));
    assertTrue(source.provenance(KEY).isEmpty());
    assertTrue(source.deleted(new RunKey("x", "y")).isEmpty());
  }
}
