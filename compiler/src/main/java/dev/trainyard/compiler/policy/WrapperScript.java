package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A shell script that {@code run} starts, as READMEs launch training ({@code bash run_ds.sh 2 4},
 * {@code sh scripts/train.sh}, {@code ./run.sh}): the launch line the lint must see is inside it.
 * The script is read at the commit ({@link RunScripts}) and linted like {@code run}, one level deep
 * (a script it starts in turn is not followed); its positional parameters are the call's arguments
 * ({@code ${2:-4}} is {@code 4} when the call passes one argument). Hints name the script's lines
 * to change ({@link #hint}).
 *
 * @param path the script as {@code run} names it, relative to the working directory
 * @param arguments the words after the script in its call
 */
record WrapperScript(String path, List<RunTokens.Word> arguments) {
  private static final Pattern SHELL = Pattern.compile("(.*/)?(bash|sh|dash)");
  private static final Pattern SCRIPT = Pattern.compile("[^$`'\"-][^$`'\"]*\\.(sh|bash)");
  private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9_.:/=+,@%-]+");

  WrapperScript {
    arguments = List.copyOf(arguments);
  }

  /**
   * The first script {@code run} starts: {@code bash|sh|dash SCRIPT.sh …} (no shell options before
   * it) or {@code SCRIPT.sh …} as a command; empty when there is none.
   */
  static Optional<WrapperScript> find(RunTokens run) {
    List<RunTokens.Word> words = run.words();
    for (int i = 0; i < words.size(); i++) {
      if (!run.startsCommand(i)) {
        continue;
      }
      int script = i;
      if (SHELL.matcher(words.get(i).text()).matches()) {
        script = i + 1;
      }
      if (script < words.size()
          && words.get(script).command() == words.get(i).command()
          && SCRIPT.matcher(words.get(script).text()).matches()) {
        List<RunTokens.Word> args = new ArrayList<>();
        for (int j = script + 1;
            j < words.size() && words.get(j).command() == words.get(i).command();
            j++) {
          args.add(words.get(j));
        }
        String path = words.get(script).text();
        return Optional.of(
            new WrapperScript(path.startsWith("./") ? path.substring(2) : path, args));
      }
    }
    return Optional.empty();
  }

  /**
   * The literal the call passes as positional parameter {@code name} ({@code "2"} → the second
   * argument); empty when the call passes fewer, when {@code name} is no positional parameter, or
   * when the argument expands ({@code $N}, quotes).
   */
  Optional<String> argument(String name) {
    if (!name.matches("[1-9][0-9]{0,2}")) {
      return Optional.empty();
    }
    int n = Integer.parseInt(name);
    return n <= arguments.size() && LITERAL.matcher(arguments.get(n - 1).text()).matches()
        ? Optional.of(arguments.get(n - 1).text())
        : Optional.empty();
  }

  /** Whether the call passes positional parameter {@code name} at all (literal or not). */
  boolean passes(String name) {
    return name.matches("[1-9][0-9]{0,2}") && Integer.parseInt(name) <= arguments.size();
  }

  /**
   * A hint's corrected script, as the lines to change: {@code in run_ds.sh, replace line 12 with
   * `torchrun --nnodes $NNODES train.py`} ({@code lines 3-5}; {@code delete lines 3-5} when the fix
   * only removes them, {@code after line 3 add `…`} when it only adds). Lines are compared with
   * blanks collapsed, as the rewrite writes them; the replacement is one line, its line breaks
   * written {@code \n}.
   *
   * @param original the script's text
   * @param fixed the corrected text (a {@link RunCheck.Rewrite} of {@code original})
   */
  String hint(String original, String fixed) {
    int lead = 0;
    for (int i = 0; i < original.length() && Character.isWhitespace(original.charAt(i)); i++) {
      lead += original.charAt(i) == '\n' ? 1 : 0;
    }
    List<String> before = lines(original.strip());
    List<String> after = lines(fixed.strip());
    int head = 0;
    while (head < before.size()
        && head < after.size()
        && before.get(head).equals(after.get(head))) {
      head++;
    }
    int tail = 0;
    while (tail < before.size() - head
        && tail < after.size() - head
        && before.get(before.size() - 1 - tail).equals(after.get(after.size() - 1 - tail))) {
      tail++;
    }
    int first = lead + head + 1;
    int last = lead + before.size() - tail;
    String lines = first == last ? "line " + first : "lines " + first + "-" + last;
    List<String> replacement = after.subList(head, after.size() - tail);
    String text = "`" + String.join("\\n", replacement).replace("`", "\\`") + "`";
    if (first > last) {
      return "in " + path + ", after line " + last + " add " + text;
    }
    if (replacement.isEmpty()) {
      return "in " + path + ", delete " + lines;
    }
    return "in " + path + ", replace " + lines + " with " + text;
  }

  private static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      out.add(line.strip().replaceAll("[ \\t]{2,}", " "));
    }
    return out;
  }
}
