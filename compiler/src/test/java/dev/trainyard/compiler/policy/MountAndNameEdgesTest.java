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

/** Issue #9 edges: volumes at / and on system folders; names over 63 characters. */
class MountAndNameEdgesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private CompileResult compile(String sub, String trainYaml) {
    return TrainProject.create(temp.resolve(sub), trainYaml).compile();
  }

  private CompileResult mount(String path) {
    return compile(
        path.replaceAll("[^a-z]", "x"),
        "run: torchrun t.py\nvolumes:\n  - {claim: data, path: \"" + path + "\"}\n");
  }

  @Test
  @DisplayName(
      "a volume at / is refused (it overlaps /workspace); /etc, /usr, /bin, /lib, /opt and anything in /proc are E419 at the path line")
  void systemFolders() {
    Diagnostic root =
        mount("/").diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow();
    assertEquals(DiagnosticCode.SYSTEM_PATH, root.code());
    assertEquals(3, root.location().line());
    WORDING.approve(root.message());
    for (String p :
        List.of(
            "/etc",
            "/usr",
            "/bin",
            "/lib",
            "/lib64",
            "/opt",
            "/usr/local",
            "/var",
            "/proc/1",
            "/sys/fs",
            "/etc/")) {
      List<Diagnostic> d = TrainProject.withCode(mount(p), DiagnosticCode.SYSTEM_PATH);
      assertEquals(1, d.size(), p + ": " + d);
    }
    for (String p :
        List.of("/etc/secrets", "/data", "/mnt/data", "/usr/share/data", "/opt/checkpoints")) {
      assertFalse(mount(p).hasErrors(), p + ": " + mount(p).diagnostics());
    }
  }

  @Test
  @DisplayName(
      "a name of valid characters over 63 is E402 saying it is too long (not 'not an RFC 1035 label')")
  void nameOver63() {
    String name = "a".repeat(70);
    Diagnostic d =
        TrainProject.withCode(
                compile("n", "name: " + name + "\nrun: torchrun t.py\n"),
                DiagnosticCode.NAME_TOO_LONG)
            .get(0);
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertTrue(
        TrainProject.withCode(
                    compile("m", "name: My_Job\nrun: torchrun t.py\n"), DiagnosticCode.INVALID_NAME)
                .size()
            == 1);
  }
}
