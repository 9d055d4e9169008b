package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link Main} reports what a command did not handle, in-process in a working directory with an
 * injected environment: an environment failure (exit 3, also as JSON when {@code --output json} is
 * asked in either spelling), an internal error (exit 4, a stack trace only with {@code
 * TRAINYARD_DEBUG=1}) and a usage error (exit 2, one {@code --help} line, no token of a URL).
 */
class MainErrorsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  TrainProject project;

  /** Where the output folder should be, a file: writing the compiled tree fails (IOException). */
  String blocked;

  @BeforeEach
  void setUp() throws Exception {
    project = TrainProject.create(temp, "run: torchrun train.py\n");
    Files.writeString(temp.resolve("blocker"), "a file where the output folder should be");
    blocked = temp.resolve("blocker/gitops").toString();
  }

  /** {@code trainyard compile train.yaml --out <blocked> more...} in the job's folder. */
  MainTest.Run compileBlocked(String... more) {
    String[] args = new String[4 + more.length];
    args[0] = "compile";
    args[1] = "train.yaml";
    args[2] = "--out";
    args[3] = blocked;
    System.arraycopy(more, 0, args, 4, more.length);
    return SubmitCommandTest.runIn(project.trainYaml().getParent(), Map.of(), args);
  }

  @Test
  @DisplayName(
      "an I/O failure is one `trainyard: error:` line and exit 3; the JSON error (message, exitCode 3) is on stdout for `--output json`, `--output=json`, `-o json`, `-ojson` and `-o=json` only")
  void environmentFailure() throws Exception {
    MainTest.Run text = compileBlocked();
    assertEquals(3, text.exit(), text.err());
    assertEquals("", text.out());
    assertTrue(text.err().startsWith("trainyard: error: cannot "), text.err());
    assertEquals(1, text.err().lines().count(), text.err());
    String message = text.err().strip().substring("trainyard: error: ".length());
    for (String[] json :
        new String[][] {
          {"--output", "json"}, {"--output=json"}, {"-o", "json"}, {"-ojson"}, {"-o=json"}
        }) {
      MainTest.Run r = compileBlocked(json);
      assertEquals(3, r.exit(), r.err());
      assertEquals(text.err(), r.err());
      JsonNode root = CanonicalJson.mapper().readTree(r.out());
      assertEquals(message, root.path("error").asText(), r.out());
      assertEquals(3, root.path("exitCode").asInt(), r.out());
      assertEquals(2, root.size(), r.out());
    }
    for (String[] text2 : new String[][] {{"--output", "text"}, {"-o", "text"}, {"-otext"}}) {
      MainTest.Run plain = compileBlocked(text2);
      assertEquals("", plain.out(), String.join(" ", text2) + ": no JSON");
    }
    MainTest.Run asText = compileBlocked("--output", "text");
    assertEquals(3, asText.exit(), asText.err());
    assertEquals("", asText.out(), "--output text: no JSON");
  }

  @Test
  @DisplayName(
      "--output as the last argument is a usage error (exit 2) naming the missing value, not a crash")
  void outputWithoutValue() {
    MainTest.Run r = compileBlocked("--output");
    assertEquals(2, r.exit(), r.err());
    assertEquals("", r.out());
    WORDING.approve(r.err());
  }

  /**
   * A {@code --changed-since} that JGit cannot parse escapes as JGit's RevisionSyntaxException (an
   * IllegalArgumentException): the one real input found that reaches the internal-error path. It is
   * a user mistake that ChangedJobs should report as a usage error; once it does, this test needs
   * another trigger.
   */
  /** {@link Main#handle} of an exception no command expects, as picocli hands it over. */
  private static MainTest.Run internalError(boolean json, boolean debug) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintWriter stdout = new PrintWriter(out, true);
    int exit =
        Main.handle(
            new IllegalStateException("unexpected"),
            json ? stdout : null,
            new PrintWriter(err, true),
            debug);
    return new MainTest.Run(exit, out.toString(), err.toString());
  }

  @Test
  @DisplayName(
      "an internal error exits 4 with one line asking for a report; the stack trace follows only in debug; no JSON on stdout")
  void internalErrorLine() {
    String line =
        "trainyard: internal error: java.lang.IllegalStateException: unexpected"
            + " (please report it; set TRAINYARD_DEBUG=1 for the stack trace)\n";
    MainTest.Run plain = internalError(false, false);
    assertEquals(4, plain.exit(), plain.err());
    assertEquals(line, plain.err());
    assertEquals("", plain.out());
    MainTest.Run json = internalError(true, false);
    assertEquals(4, json.exit(), json.err());
    assertEquals(line, json.err());
    assertEquals("", json.out(), "only environment failures are also JSON");
    MainTest.Run debug = internalError(false, true);
    assertEquals(4, debug.exit(), debug.err());
    assertTrue(
        debug
            .err()
            .startsWith(
                line + "java.lang.IllegalStateException: unexpected\n\tat dev.trainyard.cli."),
        debug.err());
  }

  @Test
  @DisplayName(
      "TRAINYARD_DEBUG=1 (only 1) is what turns the stack trace on; a revision git cannot parse is a usage error (exit 2), not an internal one")
  void debugSwitchAndBadRevision() {
    assertTrue(new Invocation(temp, Map.of("TRAINYARD_DEBUG", "1")).debug());
    assertFalse(new Invocation(temp, Map.of("TRAINYARD_DEBUG", "true")).debug());
    assertFalse(new Invocation(temp, Map.of()).debug());
    Map<String, String> env =
        Map.of(
            GitOpsOptions.GITOPS_ENV,
            temp.resolve("src").toString(),
            "TRAINYARD_CACHE",
            temp.resolve("cache").toString());
    for (String bad : new String[] {"HEAD^{", "HEAD@{99}"}) {
      MainTest.Run r =
          SubmitCommandTest.runIn(project.root(), env, "submit", "--changed-since", bad);
      assertEquals(2, r.exit(), r.err());
      assertTrue(
          r.err().startsWith("trainyard: error: --changed-since " + bad + ": no such commit"),
          r.err());
      assertFalse(r.err().contains("internal error"), r.err());
    }
  }

  @Test
  @DisplayName(
      "an exception in a thread of the CLI's own (JGit's push) prints its stack trace only with TRAINYARD_DEBUG=1")
  void uncaughtInOtherThread() {
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    try {
      for (String debug : new String[] {"0", "1"}) {
        StringWriter err = new StringWriter();
        Main.run(
            new Invocation(temp, Map.of("TRAINYARD_DEBUG", debug)),
            new PrintWriter(new StringWriter()),
            new PrintWriter(err, true),
            "--version");
        Thread.getDefaultUncaughtExceptionHandler()
            .uncaughtException(Thread.currentThread(), new IllegalStateException("push thread"));
        if (debug.equals("1")) {
          assertTrue(
              err.toString().startsWith("java.lang.IllegalStateException: push thread\n\tat "),
              err.toString());
        } else {
          assertEquals("", err.toString());
        }
      }
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
  }

  @Test
  @DisplayName(
      "a usage error prints the message (a URL's user and token cut out), picocli's suggestion, and `Try 'trainyard <command> --help'`; exit 2")
  void usage() {
    MainTest.Run url =
        SubmitCommandTest.runIn(
            temp,
            Map.of(),
            "compile",
            "train.yaml",
            "https://bot:ghp_S3CRET@github.com/x.git",
            "HTTP://u@example.com/y.git");
    assertEquals(2, url.exit(), url.err());
    assertEquals("", url.out());
    assertFalse(url.err().contains("ghp_S3CRET") || url.err().contains("bot"), url.err());
    WORDING.approve(url.err());
    MainTest.Run typo = SubmitCommandTest.runIn(temp, Map.of(), "sbumit");
    assertEquals(2, typo.exit(), typo.err());
    WORDING.approve(typo.err());
    MainTest.Run option = SubmitCommandTest.runIn(temp, Map.of(), "prune", "--dryrun");
    assertEquals(2, option.exit(), option.err());
    WORDING.approve(option.err());
  }
}
