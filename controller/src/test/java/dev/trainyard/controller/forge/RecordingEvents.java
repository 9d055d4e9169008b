package dev.trainyard.controller.forge;

import java.util.ArrayList;
import java.util.List;

/** Forge events as "kind:result" and "kind:retry:reason" lines. */
final class RecordingEvents implements ForgeEvents {

  final List<String> lines = new ArrayList<>();

  @Override
  public synchronized void called(String kind, String result) {
    lines.add(kind + ":" + result);
  }

  @Override
  public synchronized void retried(String kind, String reason) {
    lines.add(kind + ":retry:" + reason);
  }
}
