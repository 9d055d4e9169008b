package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * W434: the repository declares a Python that the runtime's image does not have. Two declarations
 * are read from the working directory: {@code pyproject.toml}'s {@code [project] requires-python}
 * (a PEP 440 specifier set; pip refuses to install a project whose {@code requires-python} the
 * running Python does not meet, PyPA "pyproject.toml specification") and {@code .python-version}
 * (pyenv's file: the version the code is written and tried with; only a newer minor version than
 * the image's is reported, as code for a newer Python, e.g. a PEP 701 f-string of 3.12, fails on an
 * older one with a SyntaxError on every rank, while older code usually runs on a newer Python).
 *
 * <pre>
 * # .python-version          on runtime mlx@2.3.0-2 (python: "3.10")
 * 3.12                       # W434 at .python-version:1:1
 * </pre>
 *
 * <p>An image Python recorded as {@code major.minor} meets a specifier when some release of that
 * minor version does ({@code 3.10} meets {@code >=3.10.4}). Not checked: runs with {@code image:}
 * set, runtimes that record no Python (W431 covers those), {@code .python-version} values that name
 * no CPython version ({@code system}, {@code pypy3.10-7.3}, {@code miniconda3-latest}).
 */
final class PythonVersionRule {
  private static final Pattern PYENV =
      Pattern.compile("(?:cpython-)?([0-9]{1,3})\\.([0-9]{1,3})(?:\\.[0-9]{1,3})?(?:[-a-z0-9.]*)");

  private PythonVersionRule() {}

  static void check(RunCheck c) {
    Optional<Pep440Version> image =
        Pep440Version.parse(RuntimePackages.of(c.job().runtime()).python());
    if (c.job().spec().image().isPresent() || image.isEmpty()) {
      return;
    }
    String folder = ReplacedPackages.folder(c);
    c.scripts()
        .read("pyproject.toml")
        .flatMap(text -> PyprojectFile.scan(folder + "pyproject.toml", text).requiresPython())
        .ifPresent(t -> requiresPython(c, image.get(), t));
    c.scripts().read(".python-version").ifPresent(t -> pyenv(c, image.get(), folder, t));
  }

  private static void requiresPython(RunCheck c, Pep440Version image, PyprojectFile.Text t) {
    Optional<Pep440Specifiers> spec = Pep440Specifiers.parse(t.value());
    if (spec.isEmpty() || releases(image).stream().anyMatch(spec.get()::admits)) {
      return;
    }
    warn(
        c,
        t.at(),
        "pyproject.toml requires Python `"
            + spec.get()
            + "`, but "
            + has(c, image)
            + ": `pip install .` refuses the project there, and code written for the Python it"
            + " names may fail on every rank",
        "choose a runtime whose Python meets `"
            + spec.get()
            + "` (`trainyard runtimes show NAME` gives its Python and packages) or set `image:` to one; if the code runs on "
            + image
            + ", widen requires-python to admit it");
  }

  private static void pyenv(RunCheck c, Pep440Version image, String folder, String text) {
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = PYENV.matcher(line);
      if (m.matches() && newer(m, image)) {
        String wants = m.group(1) + "." + m.group(2);
        warn(
            c,
            new SourceLocation(
                folder + ".python-version", i + 1, lines[i].indexOf(line.charAt(0)) + 1),
            ".python-version asks for Python "
                + line
                + ", but "
                + has(c, image)
                + ": code written for "
                + wants
                + " (e.g. syntax newer than "
                + image
                + ") fails on every rank",
            "choose a runtime whose image has Python "
                + wants
                + " or newer (`trainyard runtimes show NAME` gives its Python and packages) or set `image:` to one; if the code runs on "
                + image
                + ", write "
                + image
                + " in .python-version");
      }
      return; // pyenv reads the first version; more lines are further fallbacks
    }
  }

  /** Whether {@code major.minor} in {@code m} is newer than the image's. */
  private static boolean newer(Matcher m, Pep440Version image) {
    List<Long> r = image.release();
    long major = Long.parseLong(m.group(1));
    long minor = Long.parseLong(m.group(2));
    long imageMinor = r.size() > 1 ? r.get(1) : 0;
    return major > r.get(0) || major == r.get(0) && minor > imageMinor;
  }

  /** The image's Python, or the first and a late patch release when only major.minor is known. */
  private static List<Pep440Version> releases(Pep440Version image) {
    if (image.release().size() > 2) {
      return List.of(image);
    }
    String minor =
        image.release().get(0) + "." + (image.release().size() > 1 ? image.release().get(1) : 0);
    return List.of(
        Pep440Version.parse(minor + ".0").orElseThrow(),
        Pep440Version.parse(minor + ".999").orElseThrow());
  }

  private static String has(RunCheck c, Pep440Version image) {
    return "runtime " + c.job().runtime().ref() + "'s image has Python " + image;
  }

  private static void warn(RunCheck c, SourceLocation at, String message, String hint) {
    c.out()
        .add(
            Diagnostic.warning(DiagnosticCode.PYTHON_VERSION_MISMATCH, at, "/runtime", message)
                .withHint(hint));
  }
}
