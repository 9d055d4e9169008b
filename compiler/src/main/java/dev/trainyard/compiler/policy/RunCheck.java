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
 * What every {@code run} rule needs: the job, its {@code run} split into words, where each word stands in
 * train.yaml, and the diagnostics found so far. Also the values a corrected command uses, so every hint
 * names variables the pods really have ({@code $NNODES}, {@code $NODE_RANK}, {@code $MASTER_ADDR},
 * {@code $MASTER_PORT} on every torch, JAX and plain node; {@code $PET_NPROC_PER_NODE} on torch only).
 *
 * @param job the resolved job
 * @param run its {@code run} words
 * @param source where the words are written
 * @param scripts the scripts {@code run} names, when they can be read
 * @param out where rules add diagnostics
 */
record RunCheck(ResolvedJob job, RunTokens run, RunSource source, RunScripts scripts, List<Diagnostic> out) {
  static final String POINTER = "/run";

  int nodes() {
    return job.topology().nodes();
  }

  int procsPerNode() {
    return job.topology().procsPerNode();
  }

  Framework framework() {
    return job.runtime().framework();
  }

  /** Processes per node as a pod has it: {@code $PET_NPROC_PER_NODE} on torch, the number elsewhere. */
  String perNodeValue() {
    return framework() == Framework.TORCH ? "$PET_NPROC_PER_NODE" : Integer.toString(procsPerNode());
  }

  /** Processes across all nodes as a pod can compute it. */
  String totalValue() {
    return framework() == Framework.TORCH ? "$((NNODES * PET_NPROC_PER_NODE))" : Integer.toString(job.topology().worldSize());
  }

  SourceLocation at(RunTokens.Word w) {
    return source.at(w.start(), w.end() - w.start());
  }

  void error(DiagnosticCode code, RunTokens.Word w, String message, String hint) {
    out.add(Diagnostic.error(code, w == null ? source.start() : at(w), POINTER, message).withHint(hint));
  }

  void warning(DiagnosticCode code, RunTokens.Word w, String message, String hint) {
    out.add(Diagnostic.warning(code, w == null ? source.start() : at(w), POINTER, message).withHint(hint));
  }

  /** A rewrite of {@code run}: spans removed and text inserted, applied to the text as parsed. */
  Rewrite rewrite() {
    return new Rewrite(run.text());
  }

  /** Edits of the command text, by offsets into the original; applied from the end so offsets stay valid. */
  static final class Rewrite {
    private final String text;
    private final List<int[]> removals = new ArrayList<>();
    private final List<Object[]> inserts = new ArrayList<>();

    Rewrite(String text) {
      this.text = text;
    }

    /** Removes {@code flag} and its value, with the blank after them. */
    Rewrite remove(RunTokens.Flag flag) {
      return remove(flag.word().start(), flag.end());
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
      removals.add(new int[] {start, stop});
      return this;
    }

    /** Inserts {@code insert} at {@code at}. */
    Rewrite insert(int at, String insert) {
      inserts.add(new Object[] {at, insert});
      return this;
    }

    /** The edited text, trimmed. */
    String apply() {
      StringBuilder out = new StringBuilder(text);
      List<Object[]> edits = new ArrayList<>();
      removals.forEach(r -> edits.add(new Object[] {r[0], r[1], ""}));
      inserts.forEach(i -> edits.add(new Object[] {i[0], i[0], i[1]}));
      edits.sort(Comparator.comparingInt((Object[] e) -> (int) e[0]).thenComparingInt(e -> (int) e[1]).reversed());
      int floor = Integer.MAX_VALUE;
      for (Object[] e : edits) {
        int start = (int) e[0];
        int end = Math.min((int) e[1], floor);
        out.replace(start, Math.max(start, end), (String) e[2]);
        floor = start;
      }
      return out.toString().strip().replaceAll("[ \\t]{2,}", " ");
    }
  }
}
