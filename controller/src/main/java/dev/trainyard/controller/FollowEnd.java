package dev.trainyard.controller;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When {@code trainyard logs -f} stops following: when every followed stream has ended (a kubelet
 * ends a container's stream when the container exits), when the run reached a terminal state {@code
 * grace} ago (the last lines have arrived; a log server that keeps streams open, such as kwok's,
 * must not keep the command running), or at the deadline ({@code --timeout}).
 */
public record FollowEnd(Instant deadline, Duration grace) {

  /** Whether to stop now; {@code runEndedAt} is when the run was first seen terminal, if it was. */
  public boolean stop(boolean streamsEnded, Optional<Instant> runEndedAt, Instant now) {
    return streamsEnded
        || !now.isBefore(deadline)
        || runEndedAt.map(t -> !now.isBefore(t.plus(grace))).orElse(false);
  }
}
