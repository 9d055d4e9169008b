package dev.trainyard.controller;

import static dev.trainyard.controller.LiveApiServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Leader election on a real coordination.k8s.io/v1 Lease: who holds it, hand-over on close, and a
 * lost Lease.
 */
class LeaseElectionTest {

  static final Duration LEASE = Duration.ofSeconds(2);

  static Lease lease(String ns) {
    return LiveApiServer.client().leases().inNamespace(ns).withName("ty").get();
  }

  static String holder(String ns) {
    Lease l = lease(ns);
    return l == null || l.getSpec().getHolderIdentity() == null
        ? ""
        : l.getSpec().getHolderIdentity();
  }

  /**
   * Makes "intruder" the holder for 10 minutes; pod-a renews concurrently, so a conflict is retried
   * (at most 20 times).
   */
  static void steal(String ns) {
    for (int i = 0; i < 20; i++) {
      try {
        Lease l = lease(ns);
        l.getSpec().setHolderIdentity("intruder");
        l.getSpec().setLeaseDurationSeconds(600);
        l.getSpec().setRenewTime(ZonedDateTime.now());
        LiveApiServer.client().resource(l).update();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    throw new AssertionError("the Lease stayed in conflict for 20 updates");
  }

  @Test
  @DisplayName(
      "the first candidate takes the Lease (holder = its identity, duration as configured); closed, it releases it and the second takes over at once")
  void handOver() {
    String ns = LiveApiServer.namespace("lease");
    AtomicInteger aStarts = new AtomicInteger();
    AtomicInteger aStops = new AtomicInteger();
    AtomicInteger bStarts = new AtomicInteger();
    LeaseElection a =
        new LeaseElection(
            LiveApiServer.client(),
            LeaseElection.Settings.scaled(ns, "ty", "pod-a", LEASE),
            aStarts::incrementAndGet,
            aStops::incrementAndGet);
    await("pod-a leads", () -> aStarts.get() == 1);
    assertEquals("pod-a", holder(ns));
    assertEquals(2, lease(ns).getSpec().getLeaseDurationSeconds());
    try (LeaseElection b =
        new LeaseElection(
            LiveApiServer.client(),
            LeaseElection.Settings.scaled(ns, "ty", "pod-b", LEASE),
            bStarts::incrementAndGet,
            () -> {})) {
      ZonedDateTime before = lease(ns).getSpec().getRenewTime();
      await(
          "pod-a renews while pod-b campaigns",
          () -> lease(ns).getSpec().getRenewTime().isAfter(before));
      assertEquals(0, bStarts.get(), "only one leader");
      assertEquals("pod-a", holder(ns));
      a.close();
      await(
          "pod-b leads after the release",
          Duration.ofSeconds(10),
          () -> bStarts.get() == 1,
          () -> holder(ns));
      assertEquals("pod-b", holder(ns));
      await("pod-a was told it stopped", () -> aStops.get() == 1);
    }
  }

  @Test
  @DisplayName(
      "a leader whose Lease another holder took stops leading (onStop runs) within the renew deadline")
  void lost() {
    String ns = LiveApiServer.namespace("lost");
    AtomicInteger starts = new AtomicInteger();
    AtomicInteger stops = new AtomicInteger();
    try (LeaseElection a =
        new LeaseElection(
            LiveApiServer.client(),
            LeaseElection.Settings.scaled(ns, "ty", "pod-a", LEASE),
            starts::incrementAndGet,
            stops::incrementAndGet)) {
      await("pod-a leads", () -> starts.get() == 1);
      assertEquals(0, stops.get());
      steal(ns);
      await(
          "pod-a stops leading", Duration.ofSeconds(10), () -> stops.get() == 1, () -> holder(ns));
      assertEquals("intruder", holder(ns));
      assertFalse(starts.get() > 1, "it does not take the Lease back");
      assertTrue(starts.get() == 1);
    }
  }
}
