package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A shell command split into words for linting only (never executed): whitespace separates words,
 * quotes group them and are dropped, {@code $(…)}, {@code $((…))} and {@code ${…}} stay one word,
 * {@code ;}, {@code &}, {@code |} and an unescaped newline end a simple command. What bash does not
 * run as commands gives no words: a comment ({@code #} at the start of a word, to the end of its
 * line) and a here-document's body ({@code cat > go.sh <<EOF} … {@code EOF}, also {@code <<-} and a
 * quoted delimiter); {@link #code()} is the text with both blanked. Good enough to find flags and
 * their values; not a shell parser.
 *
 * <pre>
 * RunTokens t = RunTokens.of("cd src && torchrun --nnodes 2 train.py");
 * t.value("--nnodes")          // Optional["2"]
 * t.words().get(2).command()   // 1: the second simple command
 * </pre>
 *
 * @param text the command as written (the YAML scalar's value)
 * @param words its words in order
 * @param code {@code text} with comments and here-document bodies blanked (same length, line breaks
 *     kept), for rules that search the text itself
 */
record RunTokens(String text, List<Word> words, String code) {
  RunTokens {
    words = List.copyOf(words);
  }

  /**
   * One word.
   *
   * @param text the word without its quotes
   * @param start index in {@link RunTokens#text()} of its first character (a quote included)
   * @param end index just past its last character
   * @param command which simple command it belongs to, 0-based
   */
  record Word(String text, int start, int end, int command) {}

  static RunTokens of(String text) {
    Splitter splitter = new Splitter(text);
    for (int i = 0; i < text.length(); i++) {
      i = splitter.step(i);
    }
    splitter.flush(text.length());
    return new RunTokens(text, splitter.words, splitter.code.toString());
  }

  /**
   * The splitting state: the word being built, the open quote, the nesting of {@code $(…)}, the
   * command number.
   */
  private static final class Splitter {
    private final String text;
    private final List<Word> words = new ArrayList<>();
    private final StringBuilder word = new StringBuilder();

    /** The open quote: {@code '}, {@code "}, {@link #ANSI_C} or 0. */
    private char quote;

    /** Marks an open {@code $'…'} quote. */
    private static final char ANSI_C = '\u0001';

    private int start = -1;
    private int command;
    private int depth;
    private final StringBuilder code;

    /** The delimiter of a here-document whose body starts after this line, or "". */
    private String heredoc = "";

    /** {@code <<} stood alone: the next word is the delimiter. */
    private boolean delimiterNext;

    /** {@code <<-}: the delimiter line may start with tabs. */
    private boolean stripTabs;

    Splitter(String text) {
      this.text = text;
      this.code = new StringBuilder(text);
    }

    /** Reads the character at {@code i}; answers the index of the last character it consumed. */
    int step(int i) {
      char c = text.charAt(i);
      if (quote == 0 && depth == 0 && start < 0 && c == '#') {
        int nl = text.indexOf('\n', i);
        return blank(i, nl < 0 ? text.length() : nl) - 1;
      }
      boolean escapes = c == '\\' && i + 1 < text.length() && text.charAt(i + 1) != '\n';
      if (quote != 0) {
        if (quote == '"' && escapes && "\"\\$`".indexOf(text.charAt(i + 1)) >= 0) {
          // In double quotes a backslash quotes only " \ $ ` (bash(1), QUOTING).
          word.append(text.charAt(i + 1));
          return i + 1;
        }
        if (quote == ANSI_C && escapes) {
          // $'…' (bash(1), QUOTING): backslash escapes, \' among them; the lint keeps the letter.
          word.append(text.charAt(i + 1));
          return i + 1;
        }
        if (c == (quote == ANSI_C ? '\'' : quote)) {
          quote = 0;
        } else {
          word.append(c);
        }
        return i;
      }
      // $(…), $((…)) and ${…} are one word however many blanks they hold.
      boolean opens =
          c == '$'
              && i + 1 < text.length()
              && (text.charAt(i + 1) == '(' || text.charAt(i + 1) == '{');
      if (depth > 0 || opens) {
        start = start < 0 ? i : start;
        depth += opens || c == '(' || c == '{' ? 1 : c == ')' || c == '}' ? -1 : 0;
        word.append(opens ? text.substring(i, i + 2) : String.valueOf(c));
        return opens ? i + 1 : i;
      }
      boolean ends =
          c == ';' || c == '&' || c == '|' || (c == '\n' && (i == 0 || text.charAt(i - 1) != '\\'));
      if (ends
          || Character.isWhitespace(c)
          || (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '\n')) {
        flush(i);
        command +=
            ends && !words.isEmpty() && words.get(words.size() - 1).command() == command ? 1 : 0;
        return c == '\n' && ends && !heredoc.isEmpty() ? skipBody(i + 1) : i;
      }
      start = start < 0 ? i : start;
      if (escapes) {
        // An unquoted backslash quotes the next character: \" \' \; \# \  are literal.
        word.append(text.charAt(i + 1));
        return i + 1;
      }
      if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '\'') {
        quote = ANSI_C;
        return i + 1;
      }
      if (c == '\'' || c == '"') {
        quote = c;
      } else {
        word.append(c);
      }
      return i;
    }

    void flush(int end) {
      if (start >= 0) {
        String w = word.toString();
        words.add(new Word(w, start, end, command));
        word.setLength(0);
        if (delimiterNext) {
          heredoc = w.replace("\\", "");
          delimiterNext = false;
        } else if (text.startsWith("<<", start) && !text.startsWith("<<<", start)) {
          // Only an unquoted << (as written, not after quote removal: echo "<<EOF" prints it)
          // starts a heredoc;
          // the delimiter is the word after it with its quoting removed (<<'EOF', <<\EOF: bash's
          // quote removal).
          stripTabs = w.startsWith("<<-");
          heredoc = w.substring(stripTabs ? 3 : 2).replace("\\", "");
          delimiterNext = heredoc.isEmpty();
        }
      }
      start = -1;
    }

    /**
     * Skips a here-document's body from {@code from} (the start of the line after its {@code <<})
     * through its delimiter line; answers the index just before that line's break, so the break
     * ends the command.
     */
    private int skipBody(int from) {
      int line = from;
      while (line < text.length()) {
        int end = text.indexOf('\n', line);
        end = end < 0 ? text.length() : end;
        String body = text.substring(line, end);
        if ((stripTabs ? body.replaceFirst("^\t+", "") : body).equals(heredoc)) {
          heredoc = "";
          return blank(from, end) - 1;
        }
        line = end + 1;
      }
      heredoc = "";
      return blank(from, text.length()) - 1;
    }

    /** Blanks {@code [from, to)} in {@link #code} but its line breaks; answers {@code to}. */
    private int blank(int from, int to) {
      for (int k = from; k < to; k++) {
        code.setCharAt(k, text.charAt(k) == '\n' ? '\n' : ' ');
      }
      return to;
    }
  }

  boolean has(String flag) {
    return words.stream().anyMatch(w -> isFlag(w, flag));
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
    return word(name).isPresent();
  }

  /** The first word that is exactly {@code name} or a path ending in {@code /name}. */
  Optional<Word> word(String name) {
    return words.stream()
        .filter(w -> w.text().equals(name) || w.text().endsWith("/" + name))
        .findFirst();
  }

  /**
   * The first occurrence of {@code first} directly followed by {@code second} ({@code accelerate
   * launch}).
   */
  Optional<Word> pair(String first, String second) {
    for (int i = 0; i + 1 < words.size(); i++) {
      Word w = words.get(i);
      Word next = words.get(i + 1);
      if ((w.text().equals(first) || w.text().endsWith("/" + first))
          && next.text().equals(second)
          && next.command() == w.command()) {
        return Optional.of(w);
      }
    }
    return Optional.empty();
  }

  /** The value of {@code --flag=value} or {@code --flag value}. */
  Optional<String> value(String flag) {
    return flag(flag).map(f -> f.value().text());
  }

  /** The first use of any of {@code names}, with its value. */
  Optional<Flag> flag(String... names) {
    List<Flag> all = flags(names);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
  }

  /** Every use of any of {@code names} ({@code --flag=value} or {@code --flag value}), in order. */
  List<Flag> flags(String... names) {
    List<Flag> found = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      Word w = words.get(i);
      for (String name : names) {
        if (w.text().startsWith(name + "=")) {
          int cut = name.length() + 1;
          found.add(
              new Flag(
                  name,
                  w,
                  new Word(w.text().substring(cut), w.start() + cut, w.end(), w.command()),
                  w.end()));
        } else if (w.text().equals(name)
            && i + 1 < words.size()
            && words.get(i + 1).command() == w.command()) {
          Word value = words.get(i + 1);
          found.add(new Flag(name, w, value, value.end()));
        }
      }
    }
    return found;
  }

  /**
   * True when word {@code i} is the command of its simple command (only {@code NAME=value} words
   * before it).
   */
  boolean startsCommand(int i) {
    for (int j = i - 1; j >= 0 && words.get(j).command() == words.get(i).command(); j--) {
      if (!isAssignment(words.get(j))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The simple commands in order, each as its words (none is empty): {@code cd src && torchrun
   * train.py} → {@code [[cd, src], [torchrun, train.py]]}.
   */
  List<List<Word>> commands() {
    List<List<Word>> out = new ArrayList<>();
    for (Word w : words) {
      if (out.isEmpty() || out.get(out.size() - 1).get(0).command() != w.command()) {
        out.add(new ArrayList<>());
      }
      out.get(out.size() - 1).add(w);
    }
    return out.stream().map(List::copyOf).toList();
  }

  /**
   * Offsets {@code [start, end)} that drop simple command {@code k} of {@link #commands()} from
   * {@link #text()}: from its first word to the next command's first word (the {@code &&}, {@code
   * ;} or line break between them goes too); the last command goes with the separator before it
   * ({@code train && module purge} → {@code train}), so what is left still runs.
   */
  int[] dropSpan(List<List<Word>> commands, int k) {
    List<Word> command = commands.get(k);
    if (k + 1 < commands.size()) {
      return new int[] {command.get(0).start(), commands.get(k + 1).get(0).start()};
    }
    int start = k > 0 ? commands.get(k - 1).get(commands.get(k - 1).size() - 1).end() : 0;
    return new int[] {start, command.get(command.size() - 1).end()};
  }

  /** The position of {@code word} in {@link #words()}, or -1. */
  int indexOf(Word word) {
    return words.indexOf(word);
  }

  /** True for a {@code NAME=value} word (a shell variable assignment). */
  static boolean isAssignment(Word w) {
    return ASSIGNMENT.matcher(w.text()).matches();
  }

  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");

  private static boolean isFlag(Word w, String flag) {
    return w.text().equals(flag) || w.text().startsWith(flag + "=");
  }

  /**
   * A flag and its value as written.
   *
   * @param name the flag's spelling ({@code --nnodes})
   * @param word the word holding the flag
   * @param value its value (for {@code --flag=value}, the part after {@code =}, with offsets into
   *     the text)
   * @param end index just past the value: the span {@code [word.start, end)} is the whole flag
   */
  record Flag(String name, Word word, Word value, int end) {}
}
