package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * W433: {@code setup} installs a version limit that the package the runtime's image has does not
 * meet, so pip replaces the image's package on every node and the run trains with another one (e.g.
 * a repo pinning {@code torch<2.10} over the torch runtime's 2.13.0: pip uninstalls 2.13.0 and
 * downloads a torch that may not match the image's CUDA). pip keeps an installed package that
 * satisfies a requirement and replaces one that does not (pip's "Satisfying requirements": the
 * installed version is a candidate like any other), so the requirement wins at run time.
 *
 * <p>Read: each {@code pip install} of the user's {@code setup} (or the {@code pip install -r
 * requirements.txt} Trainyard adds), its requirements files ({@link RequirementsFile}), the {@code
 * [project] dependencies} of a project it installs ({@code pip install .}, {@code -e .}; {@link
 * PyprojectFile}) and requirements given as its arguments; compared with the versions the runtime
 * records ({@link RuntimePackages}) by PEP 440 ({@link Pep440Specifiers}). Not read: a pip install
 * into another place ({@code --target}, {@code --prefix}, {@code --root}), {@code --dry-run}, or
 * any run with {@code image:} set (the runtime's record is not that image's).
 *
 * <pre>
 * # requirements.txt, line 1
 * torch&lt;2.10        # W433 at requirements.txt:1:1 on runtime torch@2.13.0-2 (torch 2.13.0)
 * </pre>
 */
final class ReplacedPackages {
  /** The setup Trainyard adds when a requirements.txt lies next to train.yaml (ResolveStage). */
  private static final String REQUIREMENTS = "pip install -r requirements.txt";

  private static final Pattern PIP = Pattern.compile("(\\S*/)?pip[0-9.]*");

  /** pip install options that take a value as the next word. */
  private static final Set<String> WITH_VALUE =
      Set.of(
          "-c",
          "--constraint",
          "-i",
          "--index-url",
          "--extra-index-url",
          "-f",
          "--find-links",
          "--trusted-host",
          "--src",
          "--cache-dir",
          "--log",
          "--timeout",
          "--retries",
          "--proxy",
          "--no-binary",
          "--only-binary",
          "-C",
          "--config-settings",
          "--global-option",
          "--report",
          "--python",
          "--platform",
          "--python-version",
          "--implementation",
          "--abi",
          "--upgrade-strategy",
          "--progress-bar",
          "--exists-action",
          "--cert",
          "--client-cert",
          "--root-user-action");

  /** Options that install somewhere else than the image's environment, or nothing at all. */
  private static final Set<String> ELSEWHERE =
      Set.of("-t", "--target", "--prefix", "--root", "--dry-run");

  /** pip install's upgrade option: the newest release replaces an installed one that meets. */
  private static final Set<String> UPGRADE = Set.of("-U", "--upgrade");

  private ReplacedPackages() {}

  /** Adds a W433 for each requirement the image's recorded version does not meet. */
  static void check(RunCheck c) {
    if (c.job().spec().image().isPresent()) {
      return;
    }
    RuntimePackages packages = RuntimePackages.of(c.job().runtime());
    Optional<String> setup = c.job().spec().setup();
    String text =
        setup.orElse(c.job().command().setup().contains(REQUIREMENTS) ? REQUIREMENTS : "");
    RunTokens tokens = RunTokens.of(text);
    RunSource source = new RunSource(c.job().spec().document(), "/setup", text);
    List<RunTokens.Word> words = tokens.words();
    for (int i = 1; i < words.size(); i++) {
      if (words.get(i).text().equals("install") && isPip(words, i - 1)) {
        List<RunTokens.Word> all = arguments(words, i);
        String command = text.substring(words.get(i - 1).start(), end(words, i, all));
        List<RunTokens.Word> args = new ArrayList<>();
        for (int k = 0; k < all.size(); k++) {
          RunTokens.Word w = all.get(k);
          String raw = text.substring(w.start(), w.end());
          if (SetupInstalls.isRedirection(raw)) {
            // `> log.txt`: the operator's target is the next word, no requirement either.
            k += raw.matches("[0-9]*[<>]+&?") ? 1 : 0;
          } else if (!SetupInstalls.redirected(c, source, text, w, command)) {
            args.add(w);
          }
        }
        if (args.stream().noneMatch(a -> ELSEWHERE.contains(a.text().replaceFirst("=.*", "")))) {
          List<RunTokens.Word> named = new ArrayList<>();
          String before = text.substring(0, words.get(i - 1).start());
          for (Installed r : requirements(c, args, source, setup.isPresent(), before, named)) {
            compare(c, packages, r, command);
          }
          if (args.stream().anyMatch(a -> UPGRADE.contains(a.text()))) {
            SetupInstalls.upgrade(c, source, packages, named, command);
          }
        }
      }
    }
  }

  private static boolean isPip(List<RunTokens.Word> words, int i) {
    RunTokens.Word w = words.get(i);
    boolean module = i > 0 && words.get(i - 1).text().equals("-m") && w.text().equals("pip");
    return PIP.matcher(w.text()).matches() || module;
  }

  /** The words after {@code install} in the same simple command. */
  private static List<RunTokens.Word> arguments(List<RunTokens.Word> words, int install) {
    List<RunTokens.Word> args = new ArrayList<>();
    for (int j = install + 1;
        j < words.size() && words.get(j).command() == words.get(install).command();
        j++) {
      args.add(words.get(j));
    }
    return args;
  }

  private static int end(List<RunTokens.Word> words, int install, List<RunTokens.Word> args) {
    return args.isEmpty() ? words.get(install).end() : args.get(args.size() - 1).end();
  }

  /**
   * A requirement and where it comes from.
   *
   * @param requirement the requirement
   * @param from {@code requirements.txt}, {@code pyproject.toml's dependencies} or {@code setup}
   */
  private record Installed(Requirement requirement, String from) {}

  /**
   * The requirements {@code args} install that limit a version; {@code named} receives the words
   * that are requirements written in {@code setup} (with or without a limit). A requirements file
   * the user's setup names is reported when missing ({@link SetupInstalls#missingFile}).
   *
   * @param before setup's text before this command
   */
  private static List<Installed> requirements(
      RunCheck c,
      List<RunTokens.Word> args,
      RunSource source,
      boolean written,
      String before,
      List<RunTokens.Word> named) {
    List<Installed> out = new ArrayList<>();
    String folder = folder(c);
    for (int k = 0; k < args.size(); k++) {
      RunTokens.Word word = args.get(k);
      String a = word.text();
      String next = k + 1 < args.size() ? args.get(k + 1).text() : "";
      String file =
          a.equals("-r") || a.equals("--requirement")
              ? next
              : a.startsWith("--requirement=")
                  ? a.substring("--requirement=".length())
                  : a.startsWith("-r") && !a.startsWith("--") && a.length() > 2
                      ? a.substring(2)
                      : null;
      if (file != null) {
        if (written) {
          boolean separate = a.equals("-r") || a.equals("--requirement");
          SetupInstalls.missingFile(
              c, source, separate && k + 1 < args.size() ? args.get(k + 1) : word, file, before);
        }
        fromFile(c, file, folder, out);
        k += a.equals("-r") || a.equals("--requirement") ? 1 : 0;
      } else if (a.equals("-e") || a.equals("--editable")) {
        fromProject(c, next, folder, out);
        k++;
      } else if (WITH_VALUE.contains(a)) {
        k++;
      } else if (a.equals(".") || a.startsWith("./") || a.startsWith(".[")) {
        fromProject(c, a, folder, out);
      } else if (!a.startsWith("-") && written) {
        named.add(word);
        Requirement.parse(a, source.at(word.start(), word.end() - word.start()))
            .ifPresent(r -> out.add(new Installed(r, "setup")));
      }
    }
    return out;
  }

  private static void fromFile(RunCheck c, String path, String folder, List<Installed> out) {
    for (Requirement r : RequirementsFile.read(c.scripts(), path, folder)) {
      out.add(new Installed(r, Path.of(r.at().file()).getFileName().toString()));
    }
  }

  /**
   * {@code [project] dependencies} of the project at {@code dir} ({@code .}, {@code ./sub[extra]}).
   */
  private static void fromProject(RunCheck c, String dir, String folder, List<Installed> out) {
    String path =
        Path.of(dir.replaceFirst("\\[.*\\]$", ""), "pyproject.toml").normalize().toString();
    c.scripts()
        .read(path)
        .map(text -> PyprojectFile.scan(folder + path, text))
        .ifPresent(
            p ->
                p.dependencies()
                    .forEach(
                        d ->
                            Requirement.parse(d.value(), d.at())
                                .ifPresent(
                                    r ->
                                        out.add(
                                            new Installed(r, "pyproject.toml's dependencies")))));
  }

  private static void compare(RunCheck c, RuntimePackages packages, Installed in, String command) {
    Requirement r = in.requirement();
    Optional<Pep440Version> has = packages.version(r.name());
    if (has.isEmpty() || r.specifiers().admits(has.get())) {
      return;
    }
    String name = r.name();
    String image = name + " " + has.get();
    c.out()
        .add(
            Diagnostic.warning(
                    DiagnosticCode.REQUIREMENT_REPLACES_RUNTIME_PACKAGE,
                    r.at(),
                    "/setup",
                    "`"
                        + r.text()
                        + "` ("
                        + in.from()
                        + ") does not admit "
                        + image
                        + ", which runtime "
                        + c.job().runtime().ref()
                        + "'s image has: `"
                        + command
                        + "` in setup replaces it on every node, and the run trains with the "
                        + name
                        + " pip picks for `"
                        + r.specifiers()
                        + "`, not the image's")
                .withHint(
                    "drop the limit (`"
                        + name
                        + "` alone keeps the image's "
                        + has.get()
                        + ") or widen it to admit "
                        + has.get()
                        + "; to train with another "
                        + name
                        + ", choose a runtime whose image has it (`trainyard runtimes show NAME` gives its Python and packages), as a "
                        + name
                        + " pip downloads may not be built for the image's CUDA or libraries"));
  }

  /**
   * The working directory as diagnostics name it: train.yaml's folder and {@code workdir}, with a
   * trailing {@code /}; "" at the repository root.
   */
  static String folder(RunCheck c) {
    Path parent = Path.of(c.job().spec().document().map().file()).getParent();
    Path dir =
        c.job()
            .spec()
            .workdir()
            .map(w -> parent == null ? Path.of(w) : parent.resolve(w))
            .orElse(parent);
    String s = dir == null ? "" : dir.normalize().toString().replace('\\', '/');
    return s.isEmpty() ? "" : s + "/";
  }
}
