package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ShellSyntax}: what it refuses, bash refuses too ({@code bash -n -c}, the real bash on this
 * machine, exits 2 and names the same closer), and what bash reads, it accepts; then E450 through
 * the compiler at the word in {@code run}, {@code setup} and a script {@code run} starts.
 */
class ShellSyntaxTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path dir;

  /** bash's exit code and stderr for {@code bash -n -c text}. */
  private static String[] bash(String text) throws Exception {
    Process p = new ProcessBuilder("bash", "-n", "-c", text).redirectErrorStream(true).start();
    p.getOutputStream().close();
    assertTrue(p.waitFor(10, TimeUnit.SECONDS), "bash -n ended");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new String[] {Integer.toString(p.exitValue()), out};
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        // text (\n a line break) | what it stops at | its offset | the closer bash looks for (""
        // stray)
        "python \"train.py --lr 1e-3 | \" | 7 | \"",
        "echo 'it''s | ' | 9 | '",
        "MASTER_ADDR=$(hostname -i; torchrun train.py | $( | 12 | )",
        "torchrun --nnodes ${NNODES:-2 train.py | ${ | 18 | }",
        "echo `date | ` | 5 | `",
        "echo $((1 + 2) | $(( | 5 | ))",
        "echo \"$(date \"+%F)\" | $( | 6 | )",
        "if [ -f a ]; then torchrun train.py | if | 0 | fi",
        "for x in 1 2; do echo $x | for | 0 | done",
        "while true; do if true; then echo; fi | while | 0 | done",
        "case $1 in a) echo;; | case | 0 | esac",
        "{ echo a; echo b | { | 0 | }",
        "echo a; fi | fi | 8 | ~~",
        "if true; then echo; fi; done | done | 24 | ~~",
        "echo a; } | } | 8 | ~~",
        "cd src\\npip install -e .\\nif [ -n \"$X\" ]; then\\n  torchrun train.py | if | 24 | fi",
        "echo $( | $( | 5 | )",
        "echo ${ | ${ | 5 | }",
        "x=$( (cd /; pwd) | $( | 2 | )",
        "if true; then echo; done | done | 20 | ~~",
        "echo $'it\\'s | $' | 5 | '",
        "torchrun train.py && | && | 18 | a command",
        "~torchrun train.py ||~ | ~||~ | 18 | a command",
        "~python prep.py |\\n~ | ~|~ | 15 | a command",
      })
  @DisplayName("what bash stops at: the opener (or stray closer), where, and what bash looked for")
  void refused(String row, String found, int at, String closer) throws Exception {
    String text = row.replace("\\n", "\n");
    Optional<ShellSyntax.Problem> p = ShellSyntax.check(text);
    assertTrue(p.isPresent(), text);
    assertEquals(
        List.of(at, found, closer), List.of(p.get().at(), p.get().found(), p.get().closer()));
    String[] real = bash(text);
    assertEquals("2", real[0], "bash refuses it too: " + real[1]);
    if (closer.isEmpty()) {
      assertTrue(real[1].contains("unexpected token `" + found + "'"), real[1]);
    } else if (found.matches("[a-z]+|\\{") || closer.equals("a command")) {
      assertTrue(real[1].contains("unexpected end of file"), real[1]);
    } else {
      assertTrue(real[1].contains("looking for matching `" + closer.charAt(0) + "'"), real[1]);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '~',
      value = {
        "torchrun --nnodes $NNODES train.py",
        "echo \"say \\\"hi\\\"\" ok",
        "echo \\\"x \\' y",
        "echo 'a \"b' \"c 'd\"",
        "echo $(case a in a) echo x;; esac)",
        "x=${HOME:-{}",
        "if true; then time nohup python3 train.py; fi",
        "(python3 train.py)",
        "export N=3; for N in 2; do torchrun --nnodes $N train.py; done",
        "f() { echo a; }; f",
        "function g { echo a; }; g",
        "case $1 in a) if true; then echo; fi;; b) echo;; esac",
        "echo x # an ' in a comment",
        "cat > go.sh <<'EOF'\\nif [ x\\necho \"\\nEOF\\nbash go.sh",
        "echo $(( (1 + 2) * 3 )) $( (cd /; pwd) )",
        "python - <<PY\\nprint(\"}\")\\nPY",
        "find . -name '*.py' -exec echo {} \\;",
        "echo done fi esac",
        "while read -r l; do echo \"$l\"; done < <(ls)",
        "if a; then b; elif c; then d; else e; fi",
        "until false; do break; done; select x in a; do break; done",
        "{ if true; then echo; fi; }",
        "! if false; then echo; fi",
        "echo $'it\\'s' && torchrun train.py",
        "IFS=$'\\n'; echo \"$'x\"",
        "torchrun train.py &",
        "~echo a \\|~",
        "echo it costs 5$",
        "echo `date` `pwd` $",
      })
  @DisplayName("what bash reads is accepted (bash -n agrees: exit 0)")
  void accepted(String row) throws Exception {
    String text = row.replace("\\n", "\n");
    assertEquals("0", bash(text)[0], "bash reads it: " + text);
    assertEquals(Optional.empty(), ShellSyntax.check(text), text);
  }

  private List<Diagnostic> e450(String yaml, Map<String, String> files) {
    CompileResult r = TrainProject.create(dir, "jobs/a", yaml, files).compile();
    return r.diagnostics().stream().filter(d -> d.code() == DiagnosticCode.SHELL_SYNTAX).toList();
  }

  @Test
  @DisplayName(
      "E450 in run: an error at the unclosed quote's line and column, bash's words, and a hint")
  void inRun() {
    List<Diagnostic> found =
        e450("runtime: torch\nnodes: 2\nrun: python \"train.py --lr 1e-3\n", Map.of());
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertTrue(d.isError());
    assertEquals("/run", d.pointer());
    assertEquals(List.of(3, 13), List.of(d.location().line(), d.location().column()));
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("E450 in setup: at the `if` that is never closed, in a block scalar")
  void inSetup() {
    List<Diagnostic> found =
        e450(
            "runtime: torch\nnodes: 2\nsetup: |\n  pip install -e .\n  if [ -f extra.txt ]; then\n"
                + "    pip install -r extra.txt\nrun: torchrun train.py\n",
            Map.of());
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals("/setup", d.pointer());
    assertEquals(List.of(5, 3), List.of(d.location().line(), d.location().column()));
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("E450 in a script run starts: at its own line and column, named by the script")
  void inWrapperScript() {
    List<Diagnostic> found =
        e450(
            "runtime: torch\nnodes: 2\nrun: bash go.sh\n",
            Map.of("go.sh", "#!/bin/bash\nset -e\ntorchrun train.py; done\n"));
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertTrue(d.location().file().endsWith("go.sh"), d.location().toString());
    assertEquals(List.of(3, 20), List.of(d.location().line(), d.location().column()));
    assertTrue(d.message().startsWith("`go.sh` (which `run` starts) stops here"), d.message());
  }

  @Test
  @DisplayName(
      "the wording of each kind: a stray closer, a compound never closed, a quote, a substitution")
  void wording() {
    WORDING.approve(ShellSyntax.message("`run`", new ShellSyntax.Problem(8, "fi", "")));
    WORDING.approve(ShellSyntax.hint(new ShellSyntax.Problem(8, "fi", "")));
    WORDING.approve(ShellSyntax.message("`run`", new ShellSyntax.Problem(0, "for", "done")));
    WORDING.approve(ShellSyntax.hint(new ShellSyntax.Problem(0, "for", "done")));
    WORDING.approve(ShellSyntax.message("`setup`", new ShellSyntax.Problem(5, "'", "'")));
    WORDING.approve(ShellSyntax.hint(new ShellSyntax.Problem(5, "'", "'")));
    WORDING.approve(ShellSyntax.message("`run`", new ShellSyntax.Problem(5, "$((", "))")));
    WORDING.approve(ShellSyntax.hint(new ShellSyntax.Problem(5, "$((", "))")));
  }

  @Test
  @DisplayName(
      "a closing word inside another compound names it, and the hint writes the closer that fits")
  void wrongCloser() {
    ShellSyntax.Problem p =
        ShellSyntax.check("if true; then torchrun train.py; done").orElseThrow();
    assertEquals("if", p.within());
    assertEquals(
        "write `fi` here to close the `if`, or add the command this `done` should close",
        ShellSyntax.hint(p));
    assertEquals("", ShellSyntax.check("echo a; fi").orElseThrow().within());
  }

  @Test
  @DisplayName(
      "in a double-quoted YAML scalar the column is bash's quote, not YAML's opening quote")
  void columnInDoubleQuotedYaml() {
    List<Diagnostic> found =
        e450("runtime: torch\nnodes: 2\nrun: \"torchrun train.py --name \\\"foo\"\n", Map.of());
    assertEquals(1, found.size(), found.toString());
    assertEquals(
        List.of(3, 33), List.of(found.get(0).location().line(), found.get(0).location().column()));
  }
}
