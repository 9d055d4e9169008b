package dev.trainyard.compiler.fuzz;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * One compile of fuzzer-made files for the Jazzer targets ({@link TrainYamlFuzzTest}, {@link
 * PlatformYamlFuzzTest}, {@link RunLineFuzzTest}): the bytes are written as they came (so the
 * loader's own UTF-8, size and syntax checks run), compiled as {@code submit} would, and held to
 * {@link DiagnosticContract}: an escaped exception or a broken contract is a finding (an {@link
 * AssertionError} with the reason), which Jazzer keeps as a crash input.
 */
final class JazzerCompile {
  private static final Compiler COMPILER =
      new Compiler(
          new SshSecretProvider(
              TrainProject.seeded(),
              Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
  private static final Path WORK;

  static {
    try {
      WORK = Files.createTempDirectory("trainyard-jazzer");
      Files.createDirectories(WORK.resolve("src/jobs/fuzz"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A train.yaml that compiles with the embedded platform, for the platform target. */
  static final byte[] PLAIN_TRAIN_YAML = "run: python train.py\nnodes: 2\n".getBytes();

  private JazzerCompile() {}

  /**
   * Compiles {@code trainYaml} (with {@code platform} as platform.yaml when present) and throws
   * when the result breaks the contract.
   */
  static CompileResult check(byte[] trainYaml, Optional<byte[]> platform) {
    try {
      Path file = Files.write(WORK.resolve("src/jobs/fuzz/train.yaml"), trainYaml);
      Optional<Path> platformFile = Optional.empty();
      if (platform.isPresent()) {
        platformFile = Optional.of(Files.write(WORK.resolve("platform.yaml"), platform.get()));
      }
      CompileResult result =
          COMPILER.compile(
              CompileRequest.builder(file)
                  .displayPath("jobs/fuzz/train.yaml")
                  .platformFile(platformFile)
                  .sourceRepo("https://github.com/acme/fuzz.git")
                  .sourceCommit("0123456789abcdef0123456789abcdef01234567")
                  .createdAt(Instant.parse("2026-01-01T00:00:00Z"))
                  .build());
      Optional<String> violation = DiagnosticContract.violation(result);
      if (violation.isPresent()) {
        throw new AssertionError(violation.get());
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
