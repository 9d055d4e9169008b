package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reserved environment names and mount paths, seen through a compile: each an error at the user's
 * line.
 */
class EnvAndMountCompileTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String yaml) {
    return TrainProject.create(temp.resolve("p" + projects++), yaml).compile();
  }

  private static Diagnostic only(CompileResult r, DiagnosticCode code) {
    List<Diagnostic> d = TrainProject.withCode(r, code);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertTrue(d.get(0).isError());
    assertFalse(r.tree().isPresent());
    return d.get(0);
  }

  @Test
  @DisplayName("a secret's env name that `env` already sets is E403 at the secret's env key")
  void secretEnvDuplicatesEnv() {
    CompileResult r =
        compile(
            "run: torchrun x.py\nenv:\n  HF_TOKEN: x\nsecrets:\n  - {name: hf, key: token, env: HF_TOKEN}\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.ENV_SET_TWICE);
    assertEquals(
        List.of("/env/HF_TOKEN", "/secrets/0/env"),
        d.stream().map(Diagnostic::pointer).toList(),
        r.diagnostics().toString());
    assertEquals(List.of(3, 5), d.stream().map(x -> x.location().line()).toList());
    assertEquals(
        List.of(),
        TrainProject.withCode(r, DiagnosticCode.RESERVED_ENV),
        "set twice is not called reserved");
  }

  @Test
  @DisplayName(
      "a secret's env name that is reserved (one of the exact names the runtime sets) is E403; another name compiles")
  void secretEnvReserved() {
    assertEquals(
        "/secrets/0/env",
        only(
                compile(
                    "run: torchrun x.py\nsecrets:\n  - {name: hf, key: token, env: MASTER_ADDR}\n"),
                DiagnosticCode.RESERVED_ENV)
            .pointer());
    assertEquals(
        "/secrets/0/env",
        only(
                compile(
                    "run: torchrun x.py\nsecrets:\n  - {name: hf, key: token, env: PET_NNODES}\n"),
                DiagnosticCode.RESERVED_ENV)
            .pointer());
    CompileResult ok =
        compile(
            "run: torchrun x.py\nenv: {A: b}\nsecrets:\n  - {name: hf, key: token, env: HF_TOKEN}\n  - {name: w, path: /etc/w}\n");
    assertEquals(List.of(), TrainProject.withCode(ok, DiagnosticCode.RESERVED_ENV));
    assertTrue(ok.tree().isPresent(), ok.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a reserved env name is E403 at its key's line; the hint lists the names; a prefix alone reserves nothing")
  void envReserved() {
    Diagnostic d =
        only(
            compile("run: torchrun x.py\nenv:\n  OK: 1\n  PET_NODE_RANK: 2\n"),
            DiagnosticCode.RESERVED_ENV);
    assertEquals("/env/PET_NODE_RANK", d.pointer());
    assertEquals(4, d.location().line());
    assertTrue(d.hint().contains("PET_NODE_RANK"), d.hint());
    assertEquals(
        List.of(),
        TrainProject.withCode(
            compile("run: torchrun x.py\nenv:\n  OMPI_MCA_btl: tcp\n"),
            DiagnosticCode.RESERVED_ENV),
        "only the exact names torch sets are reserved, not whole prefixes");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "/workspace/data | the source code at /workspace",
        "/dev/shm | the shared-memory volume at /dev/shm",
        "/root | the writable home folder at /root"
      })
  @DisplayName("a volume on, inside or around a path Trainyard mounts is E413 at its path line")
  void reservedPath(String path, String overlaps) {
    CompileResult r =
        compile("run: torchrun x.py\nvolumes:\n  - {claim: data, path: \"" + path + "\"}\n");
    Diagnostic d = only(r, DiagnosticCode.RESERVED_PATH);
    assertEquals(
        "the volume `data` is mounted at \"" + path + "\", which overlaps " + overlaps,
        d.message());
    assertEquals("/volumes/0/path", d.pointer());
    assertEquals(3, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "two mounts on the same or nested paths (either one inside the other): the second is E413; /data and /data2 do not overlap")
  void mountsOverlap() {
    Diagnostic d =
        only(
            compile(
                "run: torchrun x.py\nvolumes:\n  - {claim: a, path: /data}\nsecrets:\n  - {name: s, path: /data/keys}\n"),
            DiagnosticCode.RESERVED_PATH);
    WORDING.approve(d.message());
    assertEquals("/secrets/0/path", d.pointer());
    Diagnostic around =
        only(
            compile(
                "run: torchrun x.py\nvolumes:\n  - {claim: a, path: /data/keys}\nsecrets:\n  - {name: s, path: /data}\n"),
            DiagnosticCode.RESERVED_PATH);
    WORDING.approve(around.message());
    CompileResult ok =
        compile(
            "run: torchrun x.py\nvolumes:\n  - {claim: a, path: /data}\n  - {claim: b, path: /data2/}\n");
    assertEquals(List.of(), TrainProject.withCode(ok, DiagnosticCode.RESERVED_PATH));
  }

  @Test
  @DisplayName("MPI runtimes also reserve /etc/mpi and the SSH folder under the runtime's home")
  void mpiPaths() {
    Diagnostic d =
        only(
            compile("run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: a, path: /etc/mpi/x}\n"),
            DiagnosticCode.RESERVED_PATH);
    WORDING.approve(d.message());
    Diagnostic ssh =
        only(
            compile(
                "run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: a, path: /home/mpiuser/.ssh}\n"),
            DiagnosticCode.RESERVED_PATH);
    assertTrue(ssh.message().contains("overlaps"), ssh.message());
    CompileResult torch = compile("run: torchrun x.py\nvolumes:\n  - {claim: a, path: /etc/mpi}\n");
    assertEquals(List.of(), TrainProject.withCode(torch, DiagnosticCode.RESERVED_PATH));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "/home/mpiuser | which would hide the home folder where the image installed its packages at /home/mpiuser",
        "/home/mpiuser/ | which would hide the home folder where the image installed its packages at /home/mpiuser",
        "/home | which would hide the home folder where the image installed its packages at /home/mpiuser",
        "/home/mpiuser/.local | which overlaps the packages the image installed in its home folder (pip --user) at /home/mpiuser/.local",
        "/home/mpiuser/.local/lib | which overlaps the packages the image installed in its home folder (pip --user) at /home/mpiuser/.local",
        "/home/mpiuser/.cache | which overlaps Trainyard's scratch folder in the home folder at /home/mpiuser/.cache",
        "/home/mpiuser/.cache/huggingface | which overlaps Trainyard's scratch folder in the home folder at /home/mpiuser/.cache",
        "/home/mpiuser/.ssh | which overlaps the MPI SSH key at /home/mpiuser/.ssh"
      })
  @DisplayName(
      "an image that owns its HOME (mpi): a volume on HOME or above it, or on its .local, .cache or .ssh, is E413 at its path line")
  void ownedHomeRefused(String path, String why) {
    Diagnostic d =
        only(
            compile(
                "run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: data, path: \""
                    + path
                    + "\"}\n"),
            DiagnosticCode.RESERVED_PATH);
    assertEquals("the volume `data` is mounted at \"" + path + "\", " + why, d.message());
    assertEquals("/volumes/0/path", d.pointer());
    assertEquals("4:25", d.location().line() + ":" + d.location().column());
    WORDING.approve(d.hint());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/home/mpiuser/data",
        "/home/mpiuser/checkpoints/run1",
        "/home/mpiuser/.localdata",
        "/home/mpiuser2"
      })
  @DisplayName(
      "an image that owns its HOME (mpi): a volume in an ordinary subfolder of HOME compiles and is mounted there")
  void ownedHomeSubfolderAllowed(String path) {
    CompileResult r =
        compile(
            "run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: data, path: \""
                + path
                + "\"}\n");
    assertEquals(List.of(), r.diagnostics().stream().filter(Diagnostic::isError).toList());
    String mounts = TrainProject.podSpec(TrainProject.object(r, "JobSet"), "launcher").toString();
    assertTrue(mounts.contains("\"mountPath\":\"" + path + "\""), mounts);
  }

  @Test
  @DisplayName("the hint for a volume on an owned HOME names a subfolder of HOME that compiles")
  void ownedHomeHintCompiles() {
    Diagnostic d =
        only(
            compile(
                "run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: data, path: /home/mpiuser}\n"),
            DiagnosticCode.RESERVED_PATH);
    WORDING.approve(d.hint());
    CompileResult ok =
        compile(
            "run: python x.py\nruntime: mpi\nvolumes:\n  - {claim: data, path: /home/mpiuser/data}\n");
    assertFalse(
        ok.diagnostics().stream().anyMatch(Diagnostic::isError), ok.diagnostics().toString());
  }
}
