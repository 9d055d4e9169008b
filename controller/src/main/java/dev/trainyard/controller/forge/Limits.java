package dev.trainyard.controller.forge;

import dev.trainyard.controller.text.ShortText;

/**
 * Length limits the forges enforce, checked before sending so a long text is cut rather than
 * refused: GitHub description 140 and context 255 (422 otherwise; docs and atlantis#2506); GitLab
 * description and target URL 255 (gitlab MR 118148); Gitea has none documented, 255 is used for
 * both.
 */
final class Limits {

  static final int CONTEXT = 255;

  private Limits() {}

  /**
   * {@code status.context()} unchanged; REJECTED locally when over 255 (a cut context would
   * collide).
   */
  static String context(CommitStatus status) throws ForgeException {
    String c = status.context();
    if (c.isEmpty() || c.codePointCount(0, c.length()) > CONTEXT) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED,
          0,
          "commit status context must have 1 to 255 characters, got " + c.length());
    }
    return c;
  }

  static String description(CommitStatus status, int max) {
    return ShortText.fit(status.description(), max);
  }
}
