package dev.trainyard.controller.forge;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that moves only when something sleeps on it; records every wait. */
public final class TestTime extends Clock implements Sleeper {

  private Instant now;
  private final List<Duration> waits = new ArrayList<>();

  public TestTime(Instant start) {
    this.now = start;
  }

  @Override
  public synchronized void sleep(Duration d) {
    waits.add(d);
    now = now.plus(d);
  }

  public synchronized List<Duration> waits() {
    return List.copyOf(waits);
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
