package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.nio.file.Path;
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
 * <p>A literal {@code cd DIR} in an earlier command of {@code run} ({@code cd scripts && ./go.sh})
 * moves where the script is looked for, as it moves bash. A script the working directory does not
 * have gets W451 ({@link #missing}) unless {@code run} writes or fetches it before (its name occurs
 * earlier in {@code run}).
 *
 * @param path the script relative to the working directory ({@code scripts/go.sh} for {@code cd
 *     scripts && ./go.sh})
 * @param word the word of {@code run} naming the script
 * @param arguments the words after the script in its call
 */
record WrapperScript(String path, RunTokens.Word word, List<RunTokens.Word> arguments) {
  private static final Pattern SHELL = Pattern.compile("(.*/)?(bash|sh|dash)");
  private static final Pattern SCRIPT = Pattern.compile("[^$`'\"-][^$`'\"]*\\.(sh|bash)");
  private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9_.:/=+,@%-]+");

  WrapperScript {
    arguments = List.copyOf(arguments);
  }

  /**
   * The first script {@code run} starts: {@code bash|sh|dash SCRIPT.sh …} (no shell options before
   * it) or {@code SCRIPT.sh …} as a command, in the folder earlier literal {@code cd}s moved to;
   * empty when there is none, or when a {@code cd} before it leaves the folder unknown ({@link
   * #changeDirectory}).
   */
  static Optional<WrapperScript> find(RunTokens run) {
    List<RunTokens.Word> words = run.words();
    String dir = "";
    for (int i = 0; i < words.size(); i++) {
      if (!run.startsCommand(i)) {
        continue;
      }
      if (words.get(i).text().equals("cd")) {
        dir = changeDirectory(dir, words, i);
        continue;
      }
      int script = i;
      if (SHELL.matcher(words.get(i).text()).matches()) {
        script = i + 1;
      }
      if (script < words.size()
          && words.get(script).command() == words.get(i).command()
          && SCRIPT.matcher(words.get(script).text()).matches()) {
        if (dir == null) {
          // After a cd the text does not resolve, the script's folder is unknown.
          return Optional.empty();
        }
        List<RunTokens.Word> args = new ArrayList<>();
        for (int j = script + 1;
            j < words.size() && words.get(j).command() == words.get(i).command();
            j++) {
          args.add(words.get(j));
        }
        String path = words.get(script).text();
        return Optional.of(
            new WrapperScript(
                dir + (path.startsWith("./") ? path.substring(2) : path), words.get(script), args));
      }
    }
    return Optional.empty();
  }

  /**
   * Where {@code cd} at word {@code i} leaves bash, as a prefix relative to the working directory
   * ({@code "scripts/"} after {@code cd scripts}); null when that cannot be known from the text: a
   * bare {@code cd} (home), an absolute path, a path that leaves the working directory, one that
   * expands ({@code cd $D}), an option ({@code cd -}), or {@code dir} already unknown.
   */
  static String changeDirectory(String dir, List<RunTokens.Word> words, int i) {
    boolean hasArgument =
        i + 1 < words.size() && words.get(i + 1).command() == words.get(i).command();
    String to = hasArgument ? words.get(i + 1).text() : "";
    if (dir == null || !LITERAL.matcher(to).matches() || to.startsWith("/") || to.startsWith("-")) {
      return null;
    }
    String moved = Path.of(dir).resolve(to).normalize().toString();
    return moved.startsWith("..") ? null : moved.isEmpty() ? "" : moved + "/";
  }

  /**
   * W451: {@code run} starts this script, the working directory has no readable file by that name
   * at the commit, and {@code run} does not name it earlier (a step that writes or fetches it is
   * trusted). bash stops with "No such file or directory" (exit 127; {@code sh}: exit 2).
   */
  void missing(RunCheck c) {
    String shown = word.text();
    if (c.run().text().substring(0, word.start()).contains(shown.replaceFirst("^\\./", ""))) {
      return;
    }
    c.warning(
        DiagnosticCode.WRAPPER_SCRIPT_MISSING,
        word,
        "`run` starts "
            + shown
            + (path.equals(shown.replaceFirst("^\\./", ""))
                ? ""
                : " (" + path + " in the working directory)")
            + ", but the working directory has no such file at this commit: the shell stops with"
            + " \"No such file or directory\" on every node",
        "commit "
            + path
            + " (a path is relative to the folder of train.yaml, or `workdir`), or fix the name");
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
