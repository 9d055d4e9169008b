package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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
   * The literal the wrapper script's positional parameter {@code name} ({@code 1}, {@code 2})
   * holds: the call's argument when it is one without expansions; empty for {@code run} itself
   * (started with no arguments), for an argument the call does not pass, and for one that expands.
   */
  java.util.Optional<String> positional(String name) {
    return wrapper == null ? java.util.Optional.empty() : wrapper.argument(name);
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
   * A hint's corrected command as a train.yaml line in backticks: {@code `run: torchrun train.py`}.
   * A command of several lines (from a {@code run: |} block) is written as one YAML double-quoted
   * scalar, so the hint stays one line that can be pasted back: {@code `run: "cd src\ntorchrun
   * train.py"`} (YAML 1.2 §7.3.1 escapes).
   */
  static String runHint(String command) {
    if (command.indexOf('\n') < 0) {
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
   * that only compute Slurm values ({@link SlurmRule#slurmAssignmentSpans}): no fixed command keeps
   * Slurm.
   */
  Rewrite rewrite() {
    Rewrite r = new Rewrite(run.text());
    SlurmRule.srunPrefix(run).ifPresent(span -> r.remove(span[0], span[1]));
    SlurmRule.slurmAssignmentSpans(run).forEach(span -> r.remove(span[0], span[1]));
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

    /** The edited text, trimmed, runs of blanks made one. */
    String apply() {
      StringBuilder out = new StringBuilder(text);
      List<Edit> sorted = new ArrayList<>(edits);
      sorted.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::end).reversed());
      int floor = Integer.MAX_VALUE;
      for (Edit e : sorted) {
        // An edit that overlaps one already applied (further right) stops where that one began.
        out.replace(e.start(), Math.max(e.start(), Math.min(e.end(), floor)), e.text());
        floor = e.start();
      }
      return out.toString().strip().replaceAll("[ \\t]{2,}", " ");
    }

    /** Replace {@code [start, end)} with {@code text}. */
    private record Edit(int start, int end, String text) {}
  }
}
