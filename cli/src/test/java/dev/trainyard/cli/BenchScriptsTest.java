package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench/compile-bench on a fresh machine: its Maven calls run offline first and, when that fails
 * (nothing cached yet), again online. Checked by running the script's own {@code bench_mvn} under
 * real bash with a stand-in {@code mvn} that fails offline, as Maven does with an empty ~/.m2.
 */
class BenchScriptsTest {
  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  @TempDir Path temp;

  @Test
  @DisplayName(
      "compile-bench's Maven step falls back to an online build when the offline one fails, and stays offline when it works")
  void offlineThenOnline() throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path fake =
        Files.writeString(
            bin.resolve("mvn"),
            "#!/usr/bin/env bash\necho \"$*\" >> \""
                + temp.resolve("calls")
                + "\"\n"
                + "[ \"$1\" = -o ] && [ -n \"$FRESH\" ] && { echo 'Cannot access central in offline mode' >&2; exit 1; }\nexit 0\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
    String script = Files.readString(ROOT.resolve("bench/compile-bench"));
    String function =
        script.substring(
            script.indexOf("bench_mvn() {"),
            script.indexOf("}", script.indexOf("bench_mvn() {")) + 1);
    assertEquals(0, bash(bin, function + "\nbench_mvn -q package", true));
    assertEquals(List.of("-o -q package", "-q package"), Files.readAllLines(temp.resolve("calls")));
    Files.delete(temp.resolve("calls"));
    assertEquals(0, bash(bin, function + "\nbench_mvn -q package", false));
    assertEquals(List.of("-o -q package"), Files.readAllLines(temp.resolve("calls")));
    assertTrue(
        script.contains("bench_mvn -q -B -Dstyle.color=never -f bench/pom.xml package"),
        "the bench uses the function");
  }

  private int bash(Path bin, String code, boolean fresh) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", code)
            .redirectErrorStream(true)
            .redirectOutput(temp.resolve("out").toFile());
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    if (fresh) {
      pb.environment().put("FRESH", "1");
    } else {
      pb.environment().remove("FRESH");
    }
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "bash did not finish: " + Files.readString(temp.resolve("out"), StandardCharsets.UTF_8));
    }
    return p.exitValue();
  }
}
