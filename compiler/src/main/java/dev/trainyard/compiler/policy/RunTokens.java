package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A shell command split into words for linting only (never executed or re-joined): whitespace separates
 * words, quotes group them and are dropped. Good enough to find flags; not a shell parser.
 *
 * @param text the command as written
 * @param words its words in order
 */
record RunTokens(String text, List<String> words) {
  RunTokens {
    words = List.copyOf(words);
  }

  static RunTokens of(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    for (char c : text.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (Character.isWhitespace(c) || c == ';' || c == '&' || c == '|') {
        flush(words, word);
      } else {
        word.append(c);
      }
    }
    flush(words, word);
    return new RunTokens(text, words);
  }

  private static void flush(List<String> words, StringBuilder word) {
    if (word.length() > 0) {
      words.add(word.toString());
      word.setLength(0);
    }
  }

  boolean has(String flag) {
    return words.stream().anyMatch(w -> w.equals(flag) || w.startsWith(flag + "="));
  }

  boolean hasAny(String... flags) {
    for (String f : flags) {
      if (has(f)) {
        return true;
      }
    }
    return false;
  }

  /** True when a word is exactly {@code name} or a path ending in {@code /name}. */
  boolean hasWord(String name) {
    return words.stream().anyMatch(w -> w.equals(name) || w.endsWith("/" + name));
  }

  /** The value of {@code --flag=value} or {@code --flag value}. */
  Optional<String> value(String flag) {
    for (int i = 0; i < words.size(); i++) {
      String w = words.get(i);
      if (w.startsWith(flag + "=")) {
        return Optional.of(w.substring(flag.length() + 1));
      }
      if (w.equals(flag) && i + 1 < words.size()) {
        return Optional.of(words.get(i + 1));
      }
    }
    return Optional.empty();
  }
}
