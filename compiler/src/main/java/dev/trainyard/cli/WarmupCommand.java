package dev.trainyard.cli;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import picocli.CommandLine.Command;

/**
 * Hidden {@code trainyard warmup}: compiles a torch and an MPI job in a throw-away git repo, so the
 * launcher script can record the classes a compile loads and build a class-data-sharing archive from them
 * (JDK 17 AppCDS: {@code -XX:DumpLoadedClassList}, then {@code -Xshare:dump}). Cuts cold start by about half.
 */
@Command(name = "warmup", hidden = true, description = "Compile sample jobs in a temp folder (used to build the CDS archive).")
final class WarmupCommand implements Callable<Integer> {
  @Override
  public Integer call() throws IOException, GitAPIException {
    Path dir = Files.createTempDirectory("trainyard-warmup-");
    try {
      Files.writeString(dir.resolve("train.yaml"), "run: torchrun train.py\nnodes: 2\nresources: {gpus: 1}\n", StandardCharsets.UTF_8);
      Files.createDirectories(dir.resolve("mpi"));
      Files.writeString(dir.resolve("mpi/train.yaml"), "runtime: deepspeed\nrun: python train.py\nnodes: 2\nenv: {A: b}\n", StandardCharsets.UTF_8);
      try (Git git = Git.init().setDirectory(dir.toFile()).call()) {
        git.getRepository().getConfig().setString("remote", "origin", "url", "https://example.com/warmup.git");
        git.add().addFilepattern(".").call();
        git.commit().setMessage("warmup").setAuthor("trainyard", "trainyard@localhost").setCommitter("trainyard", "trainyard@localhost").call();
      }
      Compiler compiler = new Compiler(SshSecretProvider.system());
      CompileResult torch = compiler.compile(CompileRequest.of(dir.resolve("train.yaml")));
      CompileResult mpi = compiler.compile(CompileRequest.of(dir.resolve("mpi/train.yaml")));
      return torch.hasErrors() || mpi.hasErrors() ? 1 : 0;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
