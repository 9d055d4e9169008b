package dev.trainyard.compiler.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which variables a shell running {@code run} can expand: what Trainyard sets ({@link
 * TrainyardEnv}), the user's {@code env} and {@code secrets}, the runtime template's own env, what
 * the command assigns itself ({@code export N=…}, {@code N=…} as a command of its own, {@code for N
 * in}, {@code read N}), and what every container has (Kubernetes sets {@code HOSTNAME} and the
 * {@code KUBERNETES_*} service names; images set {@code PATH}, {@code HOME}, …). An assignment
 * counts from the next simple command on; {@code N=… cmd} does not count: it puts N only in cmd's
 * environment, after the shell expanded cmd's words (bash(1), "SIMPLE COMMAND EXPANSION"), so
 * {@code N=2 torchrun --nnodes $N} passes an empty {@code --nnodes}.
 */
final class PodVariables {
  private static final Set<String> CONTAINER =
      Set.of(
          "PATH",
          "HOME",
          "PWD",
          "OLDPWD",
          "USER",
          "SHELL",
          "HOSTNAME",
          "LD_LIBRARY_PATH",
          "PYTHONPATH",
          "CUDA_HOME",
          "CUDA_VISIBLE_DEVICES",
          "NVIDIA_VISIBLE_DEVICES",
          "KUBERNETES_SERVICE_HOST",
          "KUBERNETES_SERVICE_PORT",
          "RANDOM",
          "SECONDS",
          "LINENO",
          "BASH_VERSION");

  /** Builtins whose {@code N=…} arguments set shell variables. */
  private static final Set<String> DECLARING =
      Set.of("export", "local", "declare", "readonly", "typeset");

  /** Reserved words that may stand before an assignment of the shell's own ({@code then N=1}). */
  private static final Set<String> RESERVED = Set.of("then", "do", "else", "{", "(");

  private static final Pattern ASSIGNMENT = Pattern.compile("\\(?([A-Za-z_][A-Za-z0-9_]*)=.*");
  private static final Pattern LOOP_OR_READ =
      Pattern.compile(
          "\\bfor\\s+([A-Za-z_][A-Za-z0-9_]*)\\s+in\\b|\\bread\\s+(?:-\\w+\\s+)*([A-Za-z_][A-Za-z0-9_]*)");

  /** A positional parameter's name: {@code 1}, {@code 12} ({@code $0} is the shell's name). */
  private static final Pattern POSITIONAL = Pattern.compile("[1-9][0-9]*");

  /** {@code set -- a b} or {@code set a b}: the one way {@code run} gets positional parameters. */
  private static final Pattern SET_ARGUMENTS =
      Pattern.compile("(?<=^|[\\s;&|(])set\\s+(--\\s+)?[^-\\s]|(?<=^|[\\s;&|(])set\\s+--\\s");

  private PodVariables() {}

  /**
   * Why {@code $name} is empty where {@code at} stands, or empty when a pod or an earlier command
   * of {@code run} sets it.
   *
   * @return the reason, worded to follow "but " ("no pod of this job sets $N")
   */
  static Optional<String> unset(RunCheck c, String name, RunTokens.Word at) {
    if (POSITIONAL.matcher(name).matches()) {
      // The pod runs `bash -c "$TRAINYARD_RUN"` with no arguments; only `set --` gives it some. A
      // wrapper script has its call's arguments.
      if (SET_ARGUMENTS.matcher(c.run().code()).find()
          || (c.wrapper() != null && c.wrapper().passes(name))) {
        return Optional.empty();
      }
      return Optional.of(
          c.wrapper() == null
              ? "`run` is started with no arguments, so $" + name + " is empty"
              : "`run` passes "
                  + c.wrapper().path()
                  + " "
                  + c.wrapper().arguments().size()
                  + " argument(s), so $"
                  + name
                  + " is empty");
    }
    if (fromPod(c, name) || assigned(c.run(), at.command(), at.start()).contains(name)) {
      return Optional.empty();
    }
    if (assigned(c.run(), Integer.MAX_VALUE, Integer.MAX_VALUE).contains(name)) {
      return Optional.of("`run` sets $" + name + " only after this command");
    }
    if (commands(c.run()).values().stream().anyMatch(command -> leading(command).contains(name))) {
      return Optional.of(
          "`"
              + name
              + "=…` in front of a command sets $"
              + name
              + " only in that command's environment, after the shell"
              + " expanded its words");
    }
    return Optional.of("no pod of this job sets $" + name);
  }

  /**
   * The value {@code $name} holds where {@code at} stands when {@code run} sets it exactly once,
   * before {@code at}'s command, to a literal ({@code export N=3; torchrun --nnodes $N}); empty
   * when it is set elsewhere too, by a loop or {@code read}, after its use, or to anything that
   * expands ({@code N=$(nproc)}).
   */
  static Optional<String> constant(RunTokens run, String name, RunTokens.Word at) {
    return assignedValue(run, name, at).filter(v -> !v.matches(".*[$`(){}].*"));
  }

  /**
   * What {@code run}'s only assignment of {@code name} wrote after {@code name=}, unexpanded
   * ({@code ID=$RANDOM} gives {@code $RANDOM}), when that assignment comes before {@code at}'s
   * command; empty when {@code run} sets it elsewhere too, by a loop or {@code read}, or only after
   * its use.
   */
  static Optional<String> assignedValue(RunTokens run, String name, RunTokens.Word at) {
    List<String> values = new ArrayList<>();
    commands(run)
        .values()
        .forEach(
            words ->
                ownAssignments(words).stream()
                    .filter(name::equals)
                    .forEach(n -> values.add(valueOf(words, n))));
    Matcher loops = LOOP_OR_READ.matcher(run.code());
    while (loops.find()) {
      if (name.equals(loops.group(1) != null ? loops.group(1) : loops.group(2))) {
        return Optional.empty();
      }
    }
    boolean before = assigned(run, at.command(), at.start()).contains(name);
    return values.size() == 1 && before ? Optional.of(values.get(0)) : Optional.empty();
  }

  /** The text after {@code name=} in the command's assignment of {@code name}. */
  private static String valueOf(List<RunTokens.Word> command, String name) {
    return command.stream()
        .filter(w -> name(w).equals(name))
        .findFirst()
        .map(w -> w.text().substring(w.text().indexOf('=') + 1))
        .orElseThrow();
  }

  private static boolean fromPod(RunCheck c, String name) {
    return CONTAINER.contains(name)
        || TrainyardEnv.seenByRun(c.job()).contains(name)
        || c.job().command().env().containsKey(name)
        || c.job().secrets().stream().anyMatch(s -> s.env().filter(name::equals).isPresent())
        || templateEnv(c.job().runtime().skeleton()).contains(name);
  }

  /**
   * The names the shell itself holds before simple command {@code command} (text offset {@code
   * offset}): assignments in a simple command of their own or after a declaring builtin, loop
   * variables, read.
   */
  private static Set<String> assigned(RunTokens run, int command, int offset) {
    Set<String> names = new TreeSet<>();
    commands(run)
        .forEach(
            (index, words) -> names.addAll(index < command ? ownAssignments(words) : List.of()));
    Matcher m = LOOP_OR_READ.matcher(run.code());
    while (m.find() && m.start() < offset) {
      names.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return names;
  }

  /**
   * The words of each simple command by its number, reserved words in front dropped ({@code then
   * N=1} is {@code N=1}).
   */
  private static Map<Integer, List<RunTokens.Word>> commands(RunTokens run) {
    Map<Integer, List<RunTokens.Word>> commands = new LinkedHashMap<>();
    for (List<RunTokens.Word> command : run.commands()) {
      int first = 0;
      while (first < command.size() && RESERVED.contains(command.get(first).text())) {
        first++;
      }
      commands.put(command.get(0).command(), command.subList(first, command.size()));
    }
    return commands;
  }

  /**
   * The names one simple command assigns in the shell: all of its words are {@code N=…}, or it is
   * {@code export N=…}.
   */
  private static List<String> ownAssignments(List<RunTokens.Word> command) {
    if (command.stream().findFirst().filter(w -> DECLARING.contains(w.text())).isPresent()) {
      return command.stream()
          .map(PodVariables::name)
          .filter(Predicate.not(String::isEmpty))
          .toList();
    }
    List<String> leading = leading(command);
    return leading.size() == command.size() ? leading : List.of();
  }

  /** The names of the {@code N=…} words a simple command starts with. */
  private static List<String> leading(List<RunTokens.Word> command) {
    return command.stream()
        .map(PodVariables::name)
        .takeWhile(Predicate.not(String::isEmpty))
        .toList();
  }

  /** The name {@code N} of a word {@code N=…}; "" for any other word. */
  private static String name(RunTokens.Word assignment) {
    Matcher m = ASSIGNMENT.matcher(assignment.text());
    return m.matches() ? m.group(1) : "";
  }

  /** The names of every {@code env} entry in the runtime's JobSet skeleton. */
  private static Set<String> templateEnv(JsonNode skeleton) {
    Set<String> names = new TreeSet<>();
    for (JsonNode env : skeleton.findValues("env")) {
      env.forEach(e -> names.add(e.path("name").asText()));
    }
    return names;
  }
}
