package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compile --out} runs the leak check submit runs, on what it would write: a key refuses it
 * and nothing lands.
 */
class CompileLeakCheckTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "a private key in an env value: compile exits 1 with E809 at the JobSet file and line, writes nothing, prints no key")
  void keyInEnvRefused() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("pasted").privateKeyOpenSsh();
    String b64 = Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    TrainProject p =
        TrainProject.create(temp, "run: python train.py\nenv:\n  DEPLOY_KEY: " + b64 + "\n");
    Path out = temp.resolve("gitops");
    for (String format : new String[] {"text", "json"}) {
      MainTest.Run r =
          MainTest.run(
              "compile", p.trainYaml().toString(), "--out", out.toString(), "--output", format);
      assertEquals(1, r.exit(), r.err());
      String all = r.out() + r.err();
      assertTrue(all.contains("E809"), all);
      for (int i = 0; i + 16 <= b64.length(); i += 8) {
        assertFalse(all.contains(b64.substring(i, i + 16)), "key fragment in the output");
      }
      assertFalse(Files.exists(out), "nothing written");
      if (format.equals("text")) {
        assertTrue(
            r.err()
                .matches(
                    "(?s).*clusters/local/default/demo-[0-9a-f]+/jobset-demo-[0-9a-f]+\\.yaml:\\d+: error\\[E809\\]: private key material,"
                        + " OpenSSH private key \\(base64 → PEM\\).*"),
            r.err());
        assertTrue(r.err().contains("nothing was written to " + out), r.err());
        assertEquals("", r.out());
      }
    }
    TrainProject ok =
        TrainProject.create(temp.resolve("ok"), "runtime: mpi\nrun: ./a.out\nnodes: 2\n");
    MainTest.Run plain =
        MainTest.run("compile", ok.trainYaml().toString(), "--out", out.toString());
    assertEquals(
        0,
        plain.exit(),
        plain.err() + "\nan MPI run's SSH Secret is allowed under the embedded default");
    assertTrue(Files.isDirectory(out.resolve("clusters/local/default")));
  }
}
