package dev.trainyard.controller;

import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.Resumed;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.TrainingSigns;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Where the reconciler gets a run's last {@link Progress}: the log follower ({@link LogFollower},
 * source LOG) or a store of pushed progress (source PUSH). The reconciler tells it each run's
 * current observation and phase ({@link #track}) so a follower can follow only running runs, and
 * when a run is gone ({@link #forget}).
 */
public interface RunProgress {

  /** No progress ever. */
  RunProgress NONE = key -> Optional.empty();

  /** The run's last progress; empty when none was seen. */
  Optional<Progress> progress(RunKey key);

  /**
   * Where the run's current attempt resumed from, as rank 0's log said ({@link Resumed}); empty
   * when not known.
   */
  default Optional<Resumed> resumed(RunKey key) {
    return Optional.empty();
  }

  /**
   * What the run's log showed beyond its progress: whether a line was read, the world size rank 0
   * printed ({@link TrainingSigns}, without {@code usual}); {@link TrainingSigns#NONE} when nothing
   * was read.
   */
  default TrainingSigns signs(RunKey key) {
    return TrainingSigns.NONE;
  }

  /** The run as the reconciler just saw it, in phase {@code phase}. */
  default void track(RunKey key, RunObservation o, Phase phase) {}

  /** The run's JobSet is gone: drop what is held for it. */
  default void forget(RunKey key) {}

  /**
   * The newest progress (by {@link Progress#updatedAt()}) of {@code sources}, each of which is
   * tracked and told of gone runs: a run that pushes and prints shows what it said last; where it
   * resumed from is the first source's that knows. Their signs merge: a log read by any, the
   * largest world size.
   */
  static RunProgress newest(List<RunProgress> sources) {
    List<RunProgress> all = List.copyOf(sources);
    return new RunProgress() {
      @Override
      public Optional<Progress> progress(RunKey key) {
        return all.stream()
            .map(s -> s.progress(key))
            .flatMap(Optional::stream)
            .max(Comparator.comparing(Progress::updatedAt));
      }

      @Override
      public Optional<Resumed> resumed(RunKey key) {
        return all.stream().map(s -> s.resumed(key)).flatMap(Optional::stream).findFirst();
      }

      @Override
      public TrainingSigns signs(RunKey key) {
        boolean read = false;
        int world = 0;
        for (RunProgress s : all) {
          TrainingSigns t = s.signs(key);
          read |= t.logRead();
          world = Math.max(world, t.worldSize());
        }
        return new TrainingSigns(read, world, null);
      }

      @Override
      public void track(RunKey key, RunObservation o, Phase phase) {
        all.forEach(s -> s.track(key, o, phase));
      }

      @Override
      public void forget(RunKey key) {
        all.forEach(s -> s.forget(key));
      }
    };
  }
}
