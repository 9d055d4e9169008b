package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The syntax errors that stop bash at a line of {@code run} or {@code setup} ({@code bash -c} reads
 * and runs one command at a time, so the lines before run and nothing after does; exit 2 on every
 * node): a quote, backquote, {@code $(}, {@code $((} or {@code ${} never closed ("unexpected EOF
 * while looking for matching `"'"), a compound command never closed ({@code if}…{@code fi}, {@code
 * for}/{@code while}/{@code until}/{@code select}…{@code done}, {@code case}…{@code esac}, {@code
 * {}…{@code }}: "syntax error: unexpected end of file") and a closing word with nothing open
 * ("syntax error near unexpected token `fi'"). Quoting and compound commands follow the GNU Bash
 * manual (§3.1.2 Quoting, §3.2.5 Compound Commands, §3.5.3 Parameter Expansion); each message above
 * was printed by bash 5.2's {@code bash -n -c}. Comments and here-document bodies are skipped as
 * {@link RunTokens} skips them. Not a parser: what it accepts may still fail, what it refuses does.
 *
 * <pre>
 * ShellSyntax.check("python \"train.py")  // Problem[at=7, found="\"", closer="\""]
 * ShellSyntax.check("echo a; fi")         // Problem[at=8, found="fi", closer=""]
 * </pre>
 */
final class ShellSyntax {

  /**
   * What bash stops at.
   *
   * @param at offset in the text of the opening (or stray closing) word or character
   * @param found that word or character as written ({@code "}, {@code $(}, {@code if}, {@code fi})
   * @param closer what bash looked for and never found; "" when {@code found} closes nothing
   * @param within for a closing word, the compound command open where it stands ({@code if} for
   *     {@code if …; then …; done}); "" when none is
   */
  record Problem(int at, String found, String closer, String within) {
    /** A problem outside any compound command. */
    Problem(int at, String found, String closer) {
      this(at, found, closer, "");
    }

    /** Whether {@code found} is a closing word with nothing open ({@code fi} alone). */
    boolean stray() {
      return closer.isEmpty();
    }
  }

  /** Compound command openers and the word that closes each. */
  private static final Map<String, String> CLOSES =
      Map.of(
          "if", "fi",
          "case", "esac",
          "for", "done",
          "while", "done",
          "until", "done",
          "select", "done",
          "{", "}");

  /** {@code NAME=value}: an assignment before a command's first word. */
  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");

  /** Reserved words after which the next word starts a command again. */
  private static final Set<String> THEN_A_COMMAND =
      Set.of("then", "do", "else", "elif", "{", "!", "time");

  private ShellSyntax() {}

  /** E450 at the word of {@code run} (or of the script it starts) that bash stops at. */
  static void check(RunCheck c) {
    check(c.run())
        .ifPresent(
            p ->
                c.error(
                    DiagnosticCode.SHELL_SYNTAX,
                    new RunTokens.Word(p.found(), p.at(), p.at() + p.found().length(), -1),
                    message("`run`", p),
                    hint(p)));
  }

  /** E450 at the word of {@code setup} that bash stops at. */
  static void checkSetup(RunCheck c) {
    c.job()
        .spec()
        .setup()
        .ifPresent(
            text ->
                check(text)
                    .ifPresent(
                        p ->
                            c.out()
                                .add(
                                    Diagnostic.error(
                                            DiagnosticCode.SHELL_SYNTAX,
                                            new RunSource(c.job().spec().document(), "/setup", text)
                                                .at(p.at(), p.found().length()),
                                            "/setup",
                                            message("`setup`", p))
                                        .withHint(hint(p)))));
  }

  /** "`run` stops here …": what bash stops at, in bash's own words, and what it means. */
  static String message(String field, Problem p) {
    String bash =
        p.stray()
            ? "syntax error near unexpected token `" + p.found() + "'"
            : CLOSES.containsKey(p.found()) || p.closer().equals("a command")
                ? "syntax error: unexpected end of file"
                : "unexpected EOF while looking for matching `" + p.closer().charAt(0) + "'";
    String what =
        p.stray()
            ? p.within().isEmpty()
                ? "this `" + p.found() + "` closes nothing"
                : "this `" + p.found() + "` cannot close the `" + p.within() + "` before it"
            : p.closer().equals("a command")
                ? "this `" + p.found() + "` is followed by no command"
                : p.closer().equals(p.found())
                    ? "this `" + p.found() + "` is never closed"
                    : "this `" + p.found() + "` is never closed with `" + p.closer() + "`";
    return field
        + " stops here with exit 2 on every node: "
        + what
        + " (bash: \""
        + bash
        + "\"); the lines before it run, its own line and the rest never do";
  }

  /** How to mend it. */
  static String hint(Problem p) {
    if (p.stray()) {
      return p.within().isEmpty()
          ? "delete this `" + p.found() + "`, or add the command it should close"
          : "write `"
              + CLOSES.get(p.within())
              + "` here to close the `"
              + p.within()
              + "`, or add the command this `"
              + p.found()
              + "` should close";
    }
    if (CLOSES.containsKey(p.found())) {
      return "add `" + p.closer() + "` after the last command of this `" + p.found() + "`";
    }
    if (p.closer().equals("a command")) {
      return "add the command it should run after it, or delete it";
    }
    return p.found().equals("\"")
        ? "add the closing `\"` where the quoted text ends"
        : "add the closing `" + p.closer() + "` where it ends";
  }

  /** The first thing bash would stop at, if any. */
  static Optional<Problem> check(String text) {
    return check(RunTokens.of(text));
  }

  /** As {@link #check(String)}, for text already split. */
  static Optional<Problem> check(RunTokens tokens) {
    Optional<Problem> unclosed = unclosed(tokens.code());
    if (unclosed.isPresent()) {
      return unclosed;
    }
    Optional<Problem> compound = compound(tokens.words());
    return compound.isPresent() ? compound : dangling(tokens.code());
  }

  /**
   * A {@code &&}, {@code ||} or {@code |} with no command after it at the end ({@code torchrun
   * train.py &&}): bash waits for one and finds the end ("syntax error: unexpected end of file").
   */
  static Optional<Problem> dangling(String code) {
    String end = code.stripTrailing();
    for (String op : new String[] {"&&", "||", "|"}) {
      int at = end.length() - op.length();
      if (end.endsWith(op) && (at == 0 || end.charAt(at - 1) != '\\')) {
        return Optional.of(new Problem(at, op, "a command"));
      }
    }
    return Optional.empty();
  }

  /** A quote, backquote, {@code $(}, {@code $((} or {@code ${} without its end. */
  static Optional<Problem> unclosed(String code) {
    Deque<Problem> open = new ArrayDeque<>();
    Deque<int[]> parens = new ArrayDeque<>();
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      String in = open.isEmpty() ? "" : open.peek().closer();
      if (in.equals("'")) {
        if (c == '\\' && open.peek().found().equals("$'")) {
          // $'…' has backslash escapes ($'it\'s'); '…' has none.
          i++;
        } else if (c == '\'') {
          open.pop();
        }
        continue;
      }
      if (c == '\\') {
        i++;
        continue;
      }
      if (c == '$' && i + 1 < code.length() && code.charAt(i + 1) == '(') {
        boolean arithmetic = i + 2 < code.length() && code.charAt(i + 2) == '(';
        open.push(new Problem(i, arithmetic ? "$((" : "$(", arithmetic ? "))" : ")"));
        parens.push(new int[] {arithmetic ? 1 : 0});
        i += arithmetic ? 2 : 1;
        continue;
      }
      if (c == '$' && i + 1 < code.length() && code.charAt(i + 1) == '\'' && !in.equals("\"")) {
        open.push(new Problem(i, "$'", "'"));
        i++;
        continue;
      }
      if (c == '$' && i + 1 < code.length() && code.charAt(i + 1) == '{') {
        open.push(new Problem(i, "${", "}"));
        i++;
        continue;
      }
      if (c == '`' && in.equals("`")) {
        open.pop();
      } else if (c == '`' || (c == '"' && !in.equals("\""))) {
        open.push(new Problem(i, String.valueOf(c), String.valueOf(c)));
      } else if (c == '"' || (c == '}' && in.equals("}"))) {
        open.pop();
      } else if (c == '\'' && !in.equals("\"")) {
        open.push(new Problem(i, "'", "'"));
      } else if (in.endsWith(")") && (c == '(' || c == ')')) {
        closeParen(open, parens, c);
      }
    }
    return open.isEmpty() ? Optional.empty() : Optional.of(open.peek());
  }

  /** A {@code (} or {@code )} inside {@code $(…)} or {@code $((…))}: nests, or ends the top one. */
  private static void closeParen(Deque<Problem> open, Deque<int[]> parens, char c) {
    int[] depth = parens.peek();
    if (c == '(') {
      depth[0]++;
    } else if (depth[0] > 0) {
      depth[0]--;
    } else {
      open.pop();
      parens.pop();
    }
  }

  /** A compound command never closed, or a closing word with nothing open. */
  static Optional<Problem> compound(List<RunTokens.Word> words) {
    Deque<Problem> open = new ArrayDeque<>();
    int command = -1;
    boolean starts = false;
    boolean name = false;
    for (RunTokens.Word w : words) {
      if (w.command() != command) {
        command = w.command();
        starts = true;
        name = false;
      }
      if (name) {
        // function NAME { …; }: the word after the name starts the body.
        name = false;
        starts = true;
        continue;
      }
      String word = w.text();
      // case WORD in PATTERN) COMMAND: a pattern's command starts after its ")".
      boolean pattern = word.endsWith(")") && !open.isEmpty() && open.peek().found().equals("case");
      if (!starts) {
        starts = pattern;
        continue;
      }
      String closer = CLOSES.get(word);
      if (closer != null) {
        open.push(new Problem(w.start(), word, closer));
      } else if (CLOSES.containsValue(word)) {
        if (open.isEmpty() || !open.peek().closer().equals(word)) {
          return Optional.of(
              new Problem(w.start(), word, "", open.isEmpty() ? "" : open.peek().found()));
        }
        open.pop();
      }
      name = word.equals("function");
      starts =
          THEN_A_COMMAND.contains(word)
              || pattern
              || word.endsWith("()")
              || ASSIGNMENT.matcher(word).matches();
    }
    return open.isEmpty() ? Optional.empty() : Optional.of(open.peek());
  }
}
