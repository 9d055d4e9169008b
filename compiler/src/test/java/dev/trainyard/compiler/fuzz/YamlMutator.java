package dev.trainyard.compiler.fuzz;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;

/**
 * Mutates YAML text the way people and tools break it: lines deleted, duplicated, swapped or
 * re-indented, values replaced by hostile or type-changing scalars, keys misspelled or added, bytes
 * flipped or cut, tabs, CRLF, anchors and alias bombs, deep nesting, huge values. Deterministic for
 * a given {@link Random}.
 */
public final class YamlMutator {
  /** Values that change type, overflow, inject, or stress the reader. */
  static final List<String> VALUES =
      List.of(
          "0",
          "-1",
          "1",
          "2",
          "65",
          "99999999999999999999",
          "2147483648",
          "-2147483649",
          "1e400",
          "1e-4",
          "0x1F",
          "0o17",
          "1_000",
          "1:30",
          ".inf",
          ".nan",
          "~",
          "null",
          "yes",
          "no",
          "on",
          "true",
          "3.10",
          "auto",
          "\"\"",
          "''",
          "[]",
          "{}",
          "[1, [2, [3]]]",
          "{a: {b: {c: 1}}}",
          "\"\\u0000\"",
          "\"\\x7f\"",
          "\"\\uFFFF\"",
          "&a x",
          "*a",
          "*nope",
          "!!binary aGk=",
          "!!python/object:os.system x",
          "!custom x",
          "\"{{ 7*7 }}\"",
          "\"{% for x in y %}\"",
          "\"$(touch /tmp/pwned)\"",
          "\"`id`\"",
          "\"; rm -rf /\"",
          "\"${HOME}\"",
          "\"$$\"",
          "\"a\\nb\"",
          "|\n  block\n  text",
          ">-\n  folded",
          "\"ünïcödé ✓\"",
          "\"\uD83D\uDE80\"",
          "\"x\" # comment",
          "-",
          "?",
          ":",
          "'unterminated",
          "\"unterminated",
          "[unclosed",
          "{unclosed",
          "1Gi",
          "-5Gi",
          "100000Ti",
          "1.5",
          "500m",
          "0.0001",
          "24h",
          "0s",
          "-1h",
          "9999999h",
          "torch",
          "torch@9.9.9",
          "mpi",
          "deepspeed",
          "mlx",
          "jax",
          "plain",
          "troch",
          "tocrh",
          "H100",
          "nvidia.com/gpu",
          "/",
          "/etc",
          "/workspace",
          "..",
          "../../etc",
          "https://",
          "http://x y",
          "default",
          "kube-system",
          "UPPER",
          "a.b",
          "x".repeat(64),
          "y".repeat(300));

  /**
   * Keys of train.yaml, platform.yaml and runtime definitions (and near misses), for added lines.
   */
  static final List<String> KEYS =
      List.of(
          "name",
          "runtime",
          "image",
          "workdir",
          "setup",
          "run",
          "nodes",
          "procsPerNode",
          "resources",
          "gpus",
          "gpuType",
          "cpu",
          "memory",
          "shm",
          "env",
          "secrets",
          "volumes",
          "queue",
          "priority",
          "retries",
          "timeout",
          "claim",
          "path",
          "readOnly",
          "apiVersion",
          "kind",
          "defaultRuntime",
          "clusters",
          "namespaces",
          "gpu",
          "codeSync",
          "queues",
          "localQueues",
          "clusterQueues",
          "resourceFlavors",
          "quota",
          "framework",
          "version",
          "jobset",
          "replicatedJobs",
          "template",
          "spec",
          "containers",
          "mpi",
          "launcherAsNode",
          "sshPort",
          "user",
          "nmae",
          "nodse",
          "<<",
          "\"\"",
          "\"a b\"",
          "1",
          "null");

  private static final String PUNCTUATION = "{}[]:,#&*!|>'\"%@`-? \t\n";
  private final Random random;

  public YamlMutator(Random random) {
    this.random = random;
  }

  /** A mutated copy of {@code text}, and a list of what was done (for reproducing a failure). */
  public record Mutated(String text, List<String> steps) {}

  /** Applies 1 to 4 mutations. */
  public Mutated mutate(String text) {
    List<String> steps = new ArrayList<>();
    String out = text;
    int count = 1 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      int op = random.nextInt(14);
      steps.add(op + "");
      out = apply(op, out);
    }
    return new Mutated(out, steps);
  }

  private String apply(int op, String text) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    int at = random.nextInt(Math.max(1, lines.size()));
    return switch (op) {
      case 0 -> join(remove(lines, at));
      case 1 -> join(insert(lines, at, lines.isEmpty() ? "" : lines.get(at)));
      case 2 -> join(swap(lines, at, random.nextInt(Math.max(1, lines.size()))));
      case 3 -> join(set(lines, at, replaceValue(lines.isEmpty() ? "" : lines.get(at))));
      case 4 -> join(insert(lines, at, indent(lines, at) + pick(KEYS) + ": " + pick(VALUES)));
      case 5 ->
          join(
              set(
                  lines,
                  at,
                  (random.nextBoolean() ? "  " : "\t") + (lines.isEmpty() ? "" : lines.get(at))));
      case 6 ->
          join(set(lines, at, lines.isEmpty() ? "" : lines.get(at).replaceFirst("^ {1,2}", "")));
      case 7 -> bytes(text);
      case 8 -> text.substring(0, random.nextInt(text.length() + 1));
      case 9 -> join(set(lines, at, transpose(lines.isEmpty() ? "" : lines.get(at))));
      case 10 -> text.replace("\n", "\r\n");
      case 11 ->
          text
              + "\nbomb0: &b0 [x, x, x, x, x, x, x, x, x, x]\nbomb1: &b1 [*b0, *b0, *b0, *b0, *b0, *b0, *b0, *b0, *b0, *b0]\n"
              + "bomb2: [*b1, *b1, *b1, *b1, *b1, *b1, *b1, *b1, *b1, *b1]\n";
      case 12 ->
          join(
              insert(
                  lines,
                  at,
                  indent(lines, at)
                      + pick(KEYS)
                      + ": "
                      + "[".repeat(2_000 + random.nextInt(20_000))));
      default ->
          join(
              insert(
                  lines,
                  at,
                  indent(lines, at)
                      + pick(KEYS)
                      + ": \""
                      + "z".repeat(100_000 + random.nextInt(1_000_000))
                      + "\""));
    };
  }

  private String replaceValue(String line) {
    int colon = line.indexOf(": ");
    if (colon < 0) {
      return line.replaceFirst("^(\\s*- ).*", "$1" + Matcher.quoteReplacement(pick(VALUES)));
    }
    return line.substring(0, colon + 2) + pick(VALUES);
  }

  private String bytes(String text) {
    StringBuilder b = new StringBuilder(text);
    int n = 1 + random.nextInt(8);
    for (int i = 0; i < n && b.length() > 0; i++) {
      int at = random.nextInt(b.length());
      switch (random.nextInt(3)) {
        case 0 -> b.deleteCharAt(at);
        case 1 -> b.insert(at, (char) random.nextInt(0x3000));
        default -> b.setCharAt(at, PUNCTUATION.charAt(random.nextInt(PUNCTUATION.length())));
      }
    }
    return b.toString();
  }

  private String transpose(String line) {
    String trimmed = line.stripLeading();
    int colon = trimmed.indexOf(':');
    if (colon < 2) {
      return line;
    }
    int i = random.nextInt(colon - 1);
    char[] chars = line.toCharArray();
    int offset = line.length() - trimmed.length() + i;
    char c = chars[offset];
    chars[offset] = chars[offset + 1];
    chars[offset + 1] = c;
    return new String(chars);
  }

  private String indent(List<String> lines, int at) {
    if (lines.isEmpty()) {
      return "";
    }
    String line = lines.get(at);
    return line.substring(0, line.length() - line.stripLeading().length());
  }

  private String pick(List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static List<String> remove(List<String> lines, int at) {
    if (!lines.isEmpty()) {
      lines.remove(at);
    }
    return lines;
  }

  private static List<String> insert(List<String> lines, int at, String line) {
    lines.add(Math.min(at, lines.size()), line);
    return lines;
  }

  private static List<String> set(List<String> lines, int at, String line) {
    if (lines.isEmpty()) {
      lines.add(line);
    } else {
      lines.set(at, line);
    }
    return lines;
  }

  private static List<String> swap(List<String> lines, int a, int b) {
    if (lines.size() > 1) {
      Collections.swap(lines, a, b);
    }
    return lines;
  }

  private static String join(List<String> lines) {
    return String.join("\n", lines);
  }
}
