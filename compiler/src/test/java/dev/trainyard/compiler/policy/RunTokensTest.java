package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How {@code run} is split into words for the lint: offsets into the text, simple commands, quotes
 * and expansions.
 */
class RunTokensTest {
  @Test
  @DisplayName(
      "words keep their offsets; ;, &&, | and a bare newline start a new command, a backslash-newline does not")
  void wordsAndCommands() {
    RunTokens t = RunTokens.of("cd src && torchrun \\\n  --nnodes 2 a.py; echo 'x y'|wc\nls");
    assertEquals(
        List.of("cd", "src", "torchrun", "--nnodes", "2", "a.py", "echo", "x y", "wc", "ls"),
        t.words().stream().map(RunTokens.Word::text).toList());
    assertEquals(
        List.of(0, 0, 1, 1, 1, 1, 2, 2, 3, 4),
        t.words().stream().map(RunTokens.Word::command).toList());
    RunTokens.Word quoted = t.words().get(7);
    assertEquals("'x y'", t.text().substring(quoted.start(), quoted.end()));
    RunTokens.Word flag = t.words().get(3);
    assertEquals("--nnodes", t.text().substring(flag.start(), flag.end()));
  }

  @Test
  @DisplayName(
      "a comment (# at a word's start, to its line's end) and a here-document's body give no words; code() blanks them, offsets kept")
  void commentsAndHereDocuments() {
    String text =
        "torchrun a.py # --nnodes 4\necho a#b $# 'c #d'; # x\ncat > go.sh <<'EOF'\ntorchrun --nnodes 4 b.py\nEOF\n"
            + "cat <<-END | wc\n\tpython3 x\n\tEND\ncat << X\nX\nls";
    RunTokens t = RunTokens.of(text);
    assertEquals(
        List.of(
            "torchrun",
            "a.py",
            "echo",
            "a#b",
            "$#",
            "c #d",
            "cat",
            ">",
            "go.sh",
            "<<EOF",
            "cat",
            "<<-END",
            "wc",
            "cat",
            "<<",
            "X",
            "ls"),
        t.words().stream().map(RunTokens.Word::text).toList());
    assertEquals(text.length(), t.code().length());
    assertFalse(
        t.code().contains("--nnodes") || t.code().contains("python3") || t.code().contains("# x"),
        t.code());
    assertEquals(
        text.chars().filter(ch -> ch == '\n').count(),
        t.code().chars().filter(ch -> ch == '\n').count());
    assertEquals(
        List.of(0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 5, 5, 5, 6),
        t.words().stream().map(RunTokens.Word::command).toList(),
        "each delimiter line's break ends its command");
    RunTokens.Word ls = t.words().get(16);
    assertEquals(text.length() - 2, ls.start());
  }

  @Test
  @DisplayName(
      "a quoted <<EOF is an argument, not a heredoc; <<\\EOF is one whose delimiter is EOF")
  void quotedHereDocumentWords() {
    assertEquals(
        List.of("echo", "<<EOF", "echo", "<<EOF", "torchrun", "--nnodes", "3"),
        RunTokens.of("echo \"<<EOF\"\necho '<<EOF'\ntorchrun --nnodes 3").words().stream()
            .map(RunTokens.Word::text)
            .toList());
    assertEquals(
        List.of("cat", "<<EOF", "ls"),
        RunTokens.of("cat <<\\EOF\ntorchrun --nnodes 4\nEOF\nls").words().stream()
            .map(RunTokens.Word::text)
            .toList());
    assertEquals(
        List.of("cat", "<<", "EOF", "ls"),
        RunTokens.of("cat << \\EOF\nbody\nEOF\nls").words().stream()
            .map(RunTokens.Word::text)
            .toList());
  }

  @Test
  @DisplayName(
      "a here-document without its delimiter line runs to the end: nothing after << gives words")
  void unterminatedHereDocument() {
    RunTokens t = RunTokens.of("cat <<EOF\ntorchrun --nnodes 4 a.py\nEOFX");
    assertEquals(List.of("cat", "<<EOF"), t.words().stream().map(RunTokens.Word::text).toList());
    assertEquals(
        "cat <<EOF\n" + " ".repeat("torchrun --nnodes 4 a.py".length()) + "\n    ", t.code());
  }

  @Test
  @DisplayName(
      "$(…), $((…)) and ${…} stay one word with their blanks; a flag's value never crosses into the next command")
  void expansionsAndValues() {
    RunTokens t = RunTokens.of("x --a $(( N * 2 )) --b ${V:-a b} --c=$(hostname -s) --d; y");
    assertEquals(Optional.of("$(( N * 2 ))"), t.value("--a"));
    assertEquals(Optional.of("${V:-a b}"), t.value("--b"));
    assertEquals(Optional.of("$(hostname -s)"), t.value("--c"));
    assertEquals(Optional.empty(), t.value("--d"));
    RunTokens.Flag c = t.flag("--c").orElseThrow();
    assertEquals("$(hostname -s)", t.text().substring(c.value().start(), c.value().end()));
    assertEquals(c.end(), c.value().end());
  }

  @Test
  @DisplayName(
      "every use of a flag is found, in order; words match exactly or as a path's last part; pairs need one command")
  void lookups() {
    RunTokens t =
        RunTokens.of("/opt/bin/torchrun --nnodes 2 a.py && torchrun --nnodes=3 b.py; tune; run");
    assertEquals(
        List.of("2", "3"), t.flags("--nnodes").stream().map(f -> f.value().text()).toList());
    assertTrue(t.hasWord("torchrun"));
    assertFalse(t.hasWord("orchrun"));
    assertTrue(t.has("--nnodes"));
    assertFalse(t.has("--nnode"));
    assertTrue(t.hasAny("--x", "--nnodes"));
    assertEquals(Optional.empty(), t.pair("tune", "run"));
    assertTrue(RunTokens.of("tune run x").pair("tune", "run").isPresent());
    assertEquals(Optional.empty(), RunTokens.of("poetry run tune").pair("tune", "run"));
    assertEquals(2, t.indexOf(t.words().get(2)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '~',
      value = {
        "echo $                      ~ echo@0#0, $@5#0",
        "echo a\\                   ~ echo@0#0, a\\@5#0",
        "$(a b) c                    ~ $(a b)@0#0, c@7#0",
        "x $(( (N + 1) * 2 )) y      ~ x@0#0, $(( (N + 1) * 2 ))@2#0, y@21#0",
        "x $(echo {a} b) y           ~ x@0#0, $(echo {a} b)@2#0, y@16#0",
        "x ${A:-{b} c} y             ~ x@0#0, ${A:-{b} c}@2#0, y@14#0",
        "NLx; y                      ~ x@1#0, y@4#1",
      })
  @DisplayName(
      "a $ or a backslash at the end is a character of the last word; (…) and {…} nest inside an expansion; a word's start is its first character; a line break first starts no command")
  void edges(String run, String expected) {
    String text = run.replace("NL", "\n");
    String words =
        RunTokens.of(text).words().stream()
            .map(w -> w.text() + "@" + w.start() + "#" + w.command())
            .collect(Collectors.joining(", "));
    assertEquals(expected, words);
  }

  @Test
  @DisplayName(
      "a backslash quotes the next character as bash does: \\\" and \\; are literal (no quote opens, no command ends), inside double quotes only \" \\ $ ` are escaped")
  void backslashQuotes() {
    assertEquals(
        List.of("echo", "\"a", "b\"", "c"),
        RunTokens.of("echo \\\"a b\\\" c").words().stream().map(RunTokens.Word::text).toList());
    RunTokens find = RunTokens.of("find . -exec rm {} \\; && ls");
    assertEquals(
        List.of("find", ".", "-exec", "rm", "{}", ";", "ls"),
        find.words().stream().map(RunTokens.Word::text).toList());
    assertEquals(0, find.words().get(5).command());
    assertEquals(1, find.words().get(6).command());
    assertEquals(
        List.of("echo", "x \" y \\n", "z"),
        RunTokens.of("echo \"x \\\" y \\n\" z").words().stream()
            .map(RunTokens.Word::text)
            .toList());
    // An escaped # starts no comment; an unescaped one after the escaped quote does.
    assertEquals(
        List.of("echo", "#x", "\"a"),
        RunTokens.of("echo \\#x \\\"a #b\\\"").words().stream().map(RunTokens.Word::text).toList());
  }

  @Test
  @DisplayName(
      "commands() groups words by simple command; dropSpan drops one command up to the next one's first word, the last one with the separator before it, a lone one whole")
  void commandsAndDropSpans() {
    String text = "cd src && A=1 torchrun t.py\nmodule purge";
    RunTokens run = RunTokens.of(text);
    List<List<RunTokens.Word>> commands = run.commands();
    assertEquals(
        List.of(
            List.of("cd", "src"), List.of("A=1", "torchrun", "t.py"), List.of("module", "purge")),
        commands.stream().map(c -> c.stream().map(RunTokens.Word::text).toList()).toList());
    List<String> dropped = new ArrayList<>();
    for (int k = 0; k < commands.size(); k++) {
      int[] span = run.dropSpan(commands, k);
      dropped.add(text.substring(0, span[0]) + "|" + text.substring(span[1]));
    }
    assertEquals(
        List.of(
            "|A=1 torchrun t.py\nmodule purge",
            "cd src && |module purge",
            "cd src && A=1 torchrun t.py|"),
        dropped);
    RunTokens lone = RunTokens.of("  ml gcc  ");
    assertEquals(List.of(0, 8), Arrays.stream(lone.dropSpan(lone.commands(), 0)).boxed().toList());
    assertTrue(RunTokens.of("").commands().isEmpty());
    assertTrue(RunTokens.isAssignment(new RunTokens.Word("_a9=", 0, 4, 0)));
    assertFalse(RunTokens.isAssignment(new RunTokens.Word("9a=1", 0, 4, 0)));
    assertFalse(RunTokens.isAssignment(new RunTokens.Word("a", 0, 1, 0)));
  }
}
