package dev.trainyard.compiler.secrets;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Whether a plain environment variable holds a credential, by its value's shape or by its name, so
 * that it is never written to the GitOps repo or shown in a preview unwarned. The token shapes are
 * facts from gitleaks' maintained default rule set ({@code config/gitleaks.toml}; each shape below
 * names its rule id); the name rule follows gitleaks' {@code generic-api-key} keywords, with a
 * literal, high-entropy value (gitleaks' global allowlist: {@code $VAR}, {@code ${VAR}}, paths
 * under {@code /etc}, {@code /tmp}… and {@code true}/{@code false}/{@code null} are no secrets).
 *
 * <pre>
 * CredentialPatterns.match("HF_TOKEN", "hf_" + 34 letters)  →  "a Hugging Face access token"
 * CredentialPatterns.match("WANDB_API_KEY", "0123…cdef")      →  "its name says it is a credential"
 * CredentialPatterns.match("WANDB_PROJECT", "llama")          →  empty
 * </pre>
 */
public final class CredentialPatterns {

  /** Value shapes in a fixed order: what the token is → its pattern (gitleaks rule id above). */
  private static final List<Map.Entry<String, Pattern>> SHAPES =
      List.of(
          // github-pat, github-oauth, github-app-token
          Map.entry("a GitHub token", Pattern.compile("\\bgh[pousr]_[0-9A-Za-z]{36}\\b")),
          // github-fine-grained-pat
          Map.entry("a GitHub fine-grained token", Pattern.compile("\\bgithub_pat_\\w{82}\\b")),
          // gitlab-pat
          Map.entry("a GitLab token", Pattern.compile("\\bglpat-[0-9A-Za-z_-]{20}\\b")),
          // huggingface-access-token
          Map.entry("a Hugging Face access token", Pattern.compile("\\bhf_[A-Za-z]{34}\\b")),
          // aws-access-token
          Map.entry(
              "an AWS access key id",
              Pattern.compile("\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\\b")),
          // slack-bot-token, slack-user-token, slack-app-token and kin
          Map.entry("a Slack token", Pattern.compile("\\bxox[abeoprs]-[0-9A-Za-z-]{10,}")),
          // anthropic-api-key, openai-api-key (sk-…T3BlbkFJ…)
          Map.entry(
              "an AI provider API key",
              Pattern.compile("\\bsk-(?:ant-api03-[\\w-]{90,}|[\\w-]{20,}T3BlbkFJ[\\w-]{20,})")),
          // age-secret-key
          Map.entry("an age secret key", Pattern.compile("AGE-SECRET-KEY-1[0-9A-Z]{58}")),
          // private-key
          Map.entry("a private key", Pattern.compile("-----BEGIN[A-Z ]*PRIVATE KEY")));

  /** Name parts that say a value is a credential (gitleaks generic-api-key's keywords). */
  private static final List<String> NAME_WORDS =
      List.of(
          "TOKEN",
          "SECRET",
          "PASSWORD",
          "PASSWD",
          "API_KEY",
          "APIKEY",
          "ACCESS_KEY",
          "PRIVATE_KEY",
          "CREDENTIAL",
          "CREDS",
          "AUTH");

  /** Values that are no literal secret: references, paths and words (gitleaks' allowlist). */
  private static final Pattern NOT_A_SECRET =
      Pattern.compile(
          "^(?:\\$\\{?[A-Za-z_][A-Za-z0-9_]*}?|(?i:true|false|null|none|yes|no)"
              + "|[/~.][\\w ./~-]*|https?://[^@\\s]*)$");

  /**
   * A literal secret has at least this many characters and this much Shannon entropy per character
   * (bits); gitleaks' generic rule asks 3.5, a lower bar suits a name that already says "token".
   */
  static final int MIN_LENGTH = 8;

  static final double MIN_ENTROPY = 3.0;

  private CredentialPatterns() {}

  /**
   * {@code text} (e.g. the last lines of a log) with every substring of a known credential shape
   * replaced by {@code ***}; a private key block's header marks the rest of its line. Names are not
   * judged here: free text has no variable names.
   */
  public static String mask(String text) {
    String out = text;
    for (Map.Entry<String, Pattern> shape : SHAPES) {
      out = shape.getValue().matcher(out).replaceAll("***");
    }
    return out;
  }

  /**
   * What makes {@code value} (of the variable {@code name}) look like a credential, in words for a
   * diagnostic; empty when it does not. Never echoes the value.
   */
  public static Optional<String> match(String name, String value) {
    for (Map.Entry<String, Pattern> shape : SHAPES) {
      if (shape.getValue().matcher(value).find()) {
        return Optional.of("its value is " + shape.getKey());
      }
    }
    String upper = name.toUpperCase(Locale.ROOT);
    boolean named = NAME_WORDS.stream().anyMatch(upper::contains);
    String v = value.strip();
    if (named
        && v.length() >= MIN_LENGTH
        && !NOT_A_SECRET.matcher(v).matches()
        && entropy(v) >= MIN_ENTROPY) {
      return Optional.of("its name says it is a credential and its value is a literal one");
    }
    return Optional.empty();
  }

  /** Shannon entropy of {@code text} in bits per character. */
  static double entropy(String text) {
    Map<Integer, Long> counts =
        text.codePoints().boxed().collect(Collectors.groupingBy(c -> c, Collectors.counting()));
    double n = text.codePointCount(0, text.length());
    double bits = 0;
    for (long c : counts.values()) {
      double p = c / n;
      bits -= p * (Math.log(p) / Math.log(2));
    }
    return bits;
  }
}
