package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What compile and validate print: diagnostics on stderr, a summary of the run and the files on
 * stdout.
 */
final class Reporting {
  private Reporting() {}

  /**
   * Why a file operation failed, in words, with the path: {@code no such file or folder: PATH},
   * {@code permission denied: PATH}, {@code a file is in the way: PATH}, {@code not a folder:
   * PATH}, {@code not UTF-8 text}; else the exception's message (the JDK's {@link
   * NoSuchFileException} and its kin carry only the path).
   */
  static String ioReason(IOException e) {
    if (e instanceof FileSystemException f) {
      String file = String.valueOf(f.getFile());
      if (f instanceof NoSuchFileException) {
        return "no such file or folder: " + file;
      } else if (f instanceof AccessDeniedException) {
        return "permission denied: " + file;
      } else if (f instanceof FileAlreadyExistsException) {
        return "a file is in the way: " + file;
      } else if (f instanceof NotDirectoryException) {
        return "not a folder: " + file;
      } else if (f instanceof DirectoryNotEmptyException) {
        return "folder not empty: " + file;
      }
      return f.getReason() == null ? file : file + ": " + f.getReason();
    }
    if (e instanceof CharacterCodingException) {
      return "not UTF-8 text";
    }
    return String.valueOf(e.getMessage());
  }

  /** Files written by compile, for the summary. */
  record Written(Path root, OutputTree tree) {}

  /** Prints {@code result} and returns the exit code (0, or 1 when there are errors). */
  static int report(
      CommandSpec spec,
      OutputOptions.Format format,
      CompileResult result,
      Optional<Written> written) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (format == OutputOptions.Format.json) {
      ObjectNode json = DiagnosticPrinter.toJson(result.diagnostics());
      result.job().filter(j -> !result.hasErrors()).ifPresent(j -> summaryJson(json, j));
      written.ifPresent(
          w -> {
            ArrayNode files = json.putArray("files");
            w.tree().files().keySet().forEach(f -> files.add(w.root().resolve(f).toString()));
          });
      out.println(json.toPrettyString());
      out.flush();
    } else {
      DiagnosticPrinter.printText(result.diagnostics(), err);
      if (!result.hasErrors()) {
        result.job().ifPresent(j -> out.println(summary(j)));
        written.ifPresent(w -> printFiles(out, w));
      }
      out.flush();
    }
    return result.hasErrors() ? 1 : 0;
  }

  /**
   * {@code run <name>: N node(s) x M process(es), runtime …, queue … in cluster/namespace, commit
   * …}.
   */
  static String summary(ResolvedJob j) {
    return "run "
        + j.naming().runName()
        + ": "
        + j.shapeLine()
        + " in "
        + j.target().cluster()
        + "/"
        + j.target().namespace()
        + ", commit "
        + j.source().commit().substring(0, Math.min(12, j.source().commit().length()));
  }

  private static void summaryJson(ObjectNode json, ResolvedJob j) {
    runJson(json.putObject("run"), j);
  }

  /** The run's name, target, queue, runtime, topology and commit as fields of {@code run}. */
  static void runJson(ObjectNode run, ResolvedJob j) {
    run.put("name", j.naming().runName())
        .put("cluster", j.target().cluster())
        .put("namespace", j.target().namespace())
        .put("queue", j.target().localQueue())
        .put("runtime", j.runtime().ref())
        .put("nodes", j.topology().nodes())
        .put("procsPerNode", j.topology().procsPerNode())
        .put("commit", j.source().commit());
  }

  /**
   * Reports an environment failure (GitOps repo unreachable, push refused): message and hint on
   * stderr, and with {@code --output json} also {@code {"error", "hint", "exitCode"}} on stdout.
   * Returns exit code 3.
   */
  static int environment(
      CommandSpec spec, OutputOptions.Format format, String message, String hint) {
    return failure(spec, format, message, hint, Main.EXIT_ENVIRONMENT);
  }

  /**
   * Like {@link #environment}, with the exit code given (2 for a flag the GitOps repo cannot
   * satisfy).
   */
  static int failure(
      CommandSpec spec, OutputOptions.Format format, String message, String hint, int exit) {
    PrintWriter err = spec.commandLine().getErr();
    err.println("trainyard: error: " + message);
    if (!hint.isEmpty()) {
      err.println("    hint: " + hint);
    }
    err.flush();
    if (format == OutputOptions.Format.json) {
      jsonError(spec, message, hint, exit);
    }
    return exit;
  }

  /** {@code {"error", "hint", "exitCode"}} on stdout: how a {@code -o json} call fails. */
  static void jsonError(CommandSpec spec, String message, String hint, int exit) {
    ObjectNode node = CanonicalJson.mapper().createObjectNode();
    node.put("error", message).put("hint", hint).put("exitCode", exit);
    spec.commandLine().getOut().println(node.toPrettyString());
    spec.commandLine().getOut().flush();
  }

  private static void printFiles(PrintWriter out, Written w) {
    out.println("wrote " + w.tree().files().size() + " files under " + w.root() + "/:");
    w.tree().files().keySet().forEach(f -> out.println("  " + f));
  }
}
