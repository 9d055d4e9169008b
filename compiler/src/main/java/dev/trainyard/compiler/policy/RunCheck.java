package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What every {@code run} rule needs: the job, its {@code run} split into words, where each word
 * stands in train.yaml, and the diagnostics found so far. Also the values a corrected command uses,
 * so every hint names variables the pods really have ({@code $NNODES}, {@code $NODE_RANK}, {@code
 * $MASTER_ADDR}, {@code $MASTER_PORT} on every torch, JAX and plain node; {@code
 * $PET_NPROC_PER_NODE} on torch only).
 *
 * @param job the resolved job
 * @param run its {@code run} words
 * @param source where the words are written
 * @param scripts the scripts {@code run} names, when they can be read
 * @param out where rules add diagnostics
 * @param wrapper the wrapper script these words come from ({@code bash run_ds.sh 2}), or null when
 *     they are {@code run} itself
 */
record RunCheck(
    ResolvedJob job,
    RunTokens run,
    RunSource source,
    RunScripts scripts,
    List<Diagnostic> out,
    WrapperScript wrapper) {
  static final String POINTER = "/run";

  /**
   * A command that YAML reads back unchanged as a plain scalar (YAML 1.2 §7.3.3): it starts with no
   * indicator character ({@code [ { ' " # & * ! | > % @ `}, or {@code - ? :} before a blank), holds
   * no {@code ": "} nor {@code " #"}, and does not end in {@code :} or a blank. Any other command is
   * hinted double-quoted, so pasting the hint back gives the same string.
   */
  private static final Pattern PLAIN_SAFE =
      Pattern.compile(
          "(?![\\[\\]{},'\"#&*!|>%@`])(?![-?:](\\s|$))(?!.*(: |\\s#|\\t))(?!.*[:\\s]$)\\S.*");

  /** The words of {@code run} itself. */
  RunCheck(
      ResolvedJob job, RunTokens run, RunSource source, RunScripts scripts, List<Diagnostic> out) {
    this(job, run, source, scripts, out, null);
  }

  /**
   * A hint's corrected command: {@code `run: …`} ({@link #runHint}) for {@code run} itself, the
   * changed lines of the wrapper script for a wrapper's words ({@link WrapperScript#hint}).
   */
  String hint(String command) {
    return wrapper == null ? runHint(command) : wrapper.hint(run.text(), command);
  }

  /**
   * The corrected command the latest finding of this line so far gives ({@code e.g. `run: …`}, or
   * {@code e.g. in go.sh, replace line …} in a wrapper script), for a rule that fixes only part of
   * the line to repeat, so every hint of a line is the same command; empty when none gave one.
   */
  Optional<String> otherHint() {
    String marker = "e.g. " + (wrapper == null ? "`run: " : "in " + wrapper.path() + ", ");
    return out.stream()
        .map(Diagnostic::hint)
        .filter(h -> h.contains(marker))
        .reduce((first, second) -> second)
        .map(h -> h.substring(h.indexOf(marker)));
  }

  /**
   * The literal the wrapper script's positional parameter {@code name} ({@code 1}, {@code 2})
   * holds: the call's argument when it is one without expansions; empty for {@code run} itself
   * (started with no arguments), for an argument the call does not pass, and for one that expands.
   */
  Optional<String> positional(String name) {
    return wrapper == null ? Optional.empty() : wrapper.argument(name);
  }

  int nodes() {
    return job.topology().nodes();
  }

  int procsPerNode() {
    return job.topology().procsPerNode();
  }

  Framework framework() {
    return job.runtime().framework();
  }

  /**
   * Processes per node as a pod has it: {@code $PET_NPROC_PER_NODE} on torch, the number elsewhere.
   */
  String perNodeValue() {
    return framework() == Framework.TORCH
        ? "$PET_NPROC_PER_NODE"
        : Integer.toString(procsPerNode());
  }

  /** Processes across all nodes as a pod can compute it. */
  String totalValue() {
    return framework() == Framework.TORCH
        ? "$((NNODES * PET_NPROC_PER_NODE))"
        : Integer.toString(job.topology().worldSize());
  }

  /**
   * A hint's corrected command as a train.yaml line in backticks: {@code `run: torchrun train.py`};
   * double-quoted when YAML would not read it back as the same plain string ({@code `run: "[ -f x ]
   * && torchrun x"`}). A command of several lines (from a {@code run: |} block) is written as one
   * YAML double-quoted scalar, so the hint stays one line that can be pasted back: {@code `run: "cd
   * src\ntorchrun train.py"`} (YAML 1.2 §7.3.1 escapes).
   */
  static String runHint(String command) {
    if (command.indexOf('\n') < 0 && PLAIN_SAFE.matcher(command).matches()) {
      return "`run: " + command + "`";
    }
    String escaped =
        command
            .replace("\\", "\\\\")
            .replace("\"", "\\\"")
            .replace("\t", "\\t")
            .replace("\n", "\\n");
    return "`run: \"" + escaped + "\"`";
  }

  SourceLocation at(RunTokens.Word w) {
    return source.at(w.start(), w.end() - w.start());
  }

  /** An error at word {@code w} of {@code run} (every rule has the offending word). */
  void error(DiagnosticCode code, RunTokens.Word w, String message, String hint) {
    out.add(Diagnostic.error(code, at(w), POINTER, message).withHint(hint));
  }

  /** A warning at word {@code w} of {@code run}. */
  void warning(DiagnosticCode code, RunTokens.Word w, String message, String hint) {
    out.add(Diagnostic.warning(code, at(w), POINTER, message).withHint(hint));
  }

  /**
   * A rewrite of {@code run}: spans removed and text inserted, applied to the text as parsed. It
   * starts without an {@code srun} prefix ({@link SlurmRule#srunPrefix}) and without the commands
   * that only compute Slurm values ({@link SlurmRule#slurmAssignmentSpans}) or call HPC modules
   * ({@link HpcModules#spans}): no fixed command keeps Slurm or {@code module load}.
   */
  Rewrite rewrite() {
    Rewrite r = new Rewrite(run.text());
    SlurmRule.srunPrefix(run).ifPresent(span -> r.remove(span[0], span[1]));
    SlurmRule.slurmAssignmentSpans(run).forEach(span -> r.remove(span[0], span[1]));
    HpcModules.spans(run).forEach(span -> r.remove(span[0], span[1]));
    return r;
  }

  /**
   * Edits of the command text, by offsets into the original; applied from the end so offsets stay
   * valid.
   */
  static final class Rewrite {
    private final String text;
    private final List<Edit> edits = new ArrayList<>();

    Rewrite(String text) {
      this.text = text;
    }

    /**
     * Removes {@code flag} and its value, with the blanks after them (a statement: rules collect
     * several).
     */
    void remove(RunTokens.Flag flag) {
      remove(flag.word().start(), flag.end());
    }

    Rewrite remove(RunTokens.Word word) {
      return remove(word.start(), word.end());
    }

    /** Removes {@code [start, end)} and the blanks after it. */
    Rewrite remove(int start, int end) {
      int stop = end;
      while (stop < text.length() && (text.charAt(stop) == ' ' || text.charAt(stop) == '\t')) {
        stop++;
      }
      edits.add(new Edit(start, stop, ""));
      return this;
    }

    /** Inserts {@code insert} at {@code at}. */
    Rewrite insert(int at, String insert) {
      edits.add(new Edit(at, at, insert));
      return this;
    }

    /**
     * The edited text, trimmed; blanks are made one only where an edit joined two runs of them
     * (quoted values and here-document bodies elsewhere keep their spacing).
     */
    String apply() {
      StringBuilder out = new StringBuilder(text);
      List<Edit> sorted = new ArrayList<>(edits);
      sorted.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::end).reversed());
      int floor = Integer.MAX_VALUE;
      for (Edit e : sorted) {
        // An edit that overlaps one already applied (further right) stops where that one began.
        out.replace(e.start(), Math.max(e.start(), Math.min(e.end(), floor)), e.text());
        // Edits are applied from the right, so nothing left of this one has moved yet.
        join(out, e.start() + e.text().length());
        join(out, e.start());
        floor = e.start();
      }
      return out.toString().strip();
    }

    /**
     * Where an edit ends at {@code at}: a blank that follows a blank goes, and blanks before a line
     * break or the end go.
     */
    private static void join(StringBuilder out, int where) {
      int at = Math.min(where, out.length());
      while (at < out.length() && at > 0 && blank(out.charAt(at)) && blank(out.charAt(at - 1))) {
        out.deleteCharAt(at);
      }
      while (at > 0
          && blank(out.charAt(at - 1))
          && (at == out.length() || out.charAt(at) == '\n')) {
        out.deleteCharAt(--at);
      }
    }

    private static boolean blank(char c) {
      return c == ' ' || c == '\t';
    }

    /** Replace {@code [start, end)} with {@code text}. */
    private record Edit(int start, int end, String text) {}
  }
}
