package dev.trainyard.controller.forge;

/** The start of a forge's error body for messages: one line, at most 200 characters. */
final class Excerpt {

  private static final int MAX = 200;

  private Excerpt() {}

  static String of(String body) {
    String oneLine = body == null ? "" : body.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= MAX ? oneLine : oneLine.substring(0, MAX) + "...";
  }
}
