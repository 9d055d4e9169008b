package dev.trainyard.controller;

import dev.trainyard.controller.state.Failure;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link RunSource} that remembers, per JobSet incarnation, what last kept its pods from starting
 * ({@link RunStateMapper#startBlocker}: an image that cannot be pulled, a Secret that does not
 * exist) and hands it to later observations as {@link RunObservation#earlier}. The evidence goes
 * with the pods: Kueue's PodsReady timeout evicts them (and after {@code backoffLimitCount}
 * evictions deactivates the Workload), the run's timeout makes the Job controller delete them.
 * Remembered only until the run's pods all start (then an old pull error explains nothing), and
 * dropped with the run; at most {@link #MAX} runs (the oldest go first).
 */
final class StartEvidence implements RunSource {

  static final int MAX = 10_000;
  private final RunSource cache;
  private final Map<RunKey, Seen> seen =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<RunKey, Seen> eldest) {
              return size() > MAX;
            }
          });

  /**
   * What blocked the start of one JobSet incarnation (its creation time tells a re-created JobSet
   * apart).
   */
  private record Seen(Instant created, Failure blocker) {}

  StartEvidence(RunSource cache) {
    this.cache = cache;
  }

  @Override
  public Optional<RunObservation> observe(RunKey key) {
    return cache.observe(key).map(o -> remembered(key, o));
  }

  private RunObservation remembered(RunKey key, RunObservation o) {
    Instant created = o.jobSet().created();
    Optional<Failure> now = RunStateMapper.startBlocker(o);
    if (now.isPresent()) {
      seen.put(key, new Seen(created, now.get()));
    } else if (RunStateMapper.started(o)) {
      seen.remove(key);
    }
    Seen s = seen.get(key);
    if (s == null || !Objects.equals(s.created(), created)) {
      return o;
    }
    return o.withEarlier(Optional.of(s.blocker()));
  }

  @Override
  public Optional<RunProvenance> provenance(RunKey key) {
    return cache.provenance(key);
  }

  @Override
  public Optional<DeletedRun> deleted(RunKey key) {
    return cache.deleted(key).map(d -> new DeletedRun(d.provenance(), remembered(key, d.last())));
  }

  @Override
  public void forget(RunKey key) {
    seen.remove(key);
    cache.forget(key);
  }

  /** Runs remembered, for tests. */
  int size() {
    return seen.size();
  }

  @Override
  public Optional<String> logTail(
      RunKey key, String pod, String container, int lines, int maxBytes) {
    return cache.logTail(key, pod, container, lines, maxBytes);
  }
}
