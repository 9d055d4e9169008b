package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's contract: exit codes, where output goes, JSON output, nothing written on errors. */
class MainTest {
  @TempDir Path temp;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  @DisplayName("compile writes the run's folder and lists the files; exit 0")
  void compileWrites() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    Path out = temp.resolve("gitops");
    Run r = run("compile", p.trainYaml().toString(), "--out", out.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("run demo-"), r.out());
    assertTrue(r.out().contains("clusters/local/default/demo-"), r.out());
    assertTrue(Files.isDirectory(out.resolve("clusters/local/_cluster")));
  }

  @Test
  @DisplayName(
      "a user mistake exits 1 with file:line:col diagnostics, no stack trace, and nothing written")
  void mistakeExitsOneWritesNothing() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 0\n");
    Path out = temp.resolve("gitops");
    Run r = run("compile", p.trainYaml().toString(), "--out", out.toString());
    assertEquals(1, r.exit());
    assertTrue(
        r.err().contains("train.yaml:2:8: error[E204]: `nodes` must be at least 1, got 0"),
        r.err());
    assertFalse(r.err().contains("Exception"), r.err());
    assertFalse(Files.exists(out), "nothing may be written when the compile fails");
  }

  @Test
  @DisplayName("--output json gives machine-readable diagnostics with line, column and pointer")
  void jsonOutput() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnode: 2\n");
    Run r = run("validate", p.trainYaml().toString(), "--output", "json");
    assertEquals(1, r.exit());
    JsonNode json = CanonicalJson.mapper().readTree(r.out());
    JsonNode d = json.path("diagnostics").path(0);
    assertEquals("E201", d.path("code").asText());
    assertEquals(2, d.path("line").asInt());
    assertEquals(1, d.path("column").asInt());
    assertEquals("/node", d.path("pointer").asText());
    assertEquals("did you mean `nodes`?", d.path("hint").asText());
    assertEquals(1, json.path("errors").asInt());
  }

  @Test
  @DisplayName("validate writes nothing and exits 0 for a good file")
  void validateWritesNothing() {
    TrainProject p =
        TrainProject.create(temp, "runtime: deepspeed\nrun: python train.py\nnodes: 2\n");
    Path out = temp.resolve("gitops");
    Run r = run("validate", p.trainYaml().toString(), "--out", out.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("run demo-"), r.out());
    assertFalse(Files.exists(out), "validate must not write the output tree");
  }

  @Test
  @DisplayName("a wrong option is a usage error: exit 2")
  void usageError() {
    assertEquals(2, run("compile", "--no-such-flag", "x.yaml").exit());
    assertEquals(2, run("frobnicate").exit());
  }

  @Test
  @DisplayName(
      "an unwritable output folder is an environment error: exit 3, one line, no stack trace")
  void environmentError() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path blocker = temp.resolve("blocker");
    Files.writeString(blocker, "a file where the output folder should be");
    Run r = run("compile", p.trainYaml().toString(), "--out", blocker.resolve("gitops").toString());
    assertEquals(3, r.exit(), r.err());
    assertTrue(r.err().startsWith("trainyard: error: "), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
    Run json =
        run(
            "compile",
            p.trainYaml().toString(),
            "--out",
            blocker.resolve("gitops").toString(),
            "--output",
            "json");
    assertEquals(3, json.exit());
    assertEquals(
        3, CanonicalJson.mapper().readTree(json.out()).path("exitCode").asInt(), json.out());
  }

  @Test
  @DisplayName(
      "init scaffolds a train.yaml that compiles, points editors at the schema, and never overwrites")
  void initScaffolds() throws Exception {
    Path dir = temp.resolve("proj");
    assertEquals(0, run("init", dir.toString(), "--nodes", "2").exit());
    String text = Files.readString(dir.resolve("train.yaml"), StandardCharsets.UTF_8);
    assertTrue(
        text.startsWith(
            "# yaml-language-server: $schema=https://trainyard.dev/schemas/train.v1.schema.json\n"),
        text);
    assertTrue(text.contains("run: torchrun train.py\nnodes: 2\n"), text);
    Run again = run("init", dir.toString());
    assertEquals(1, again.exit());
    assertTrue(again.err().contains("already exists"), again.err());
    TrainProject p = TrainProject.create(temp.resolve("c"), text);
    assertEquals(0, run("validate", p.trainYaml().toString()).exit());
  }

  @Test
  @DisplayName("schema prints the train.yaml JSON Schema (2020-12)")
  void schemaPrints() throws Exception {
    Run r = run("schema");
    JsonNode schema = CanonicalJson.mapper().readTree(r.out());
    assertEquals("https://json-schema.org/draft/2020-12/schema", schema.path("$schema").asText());
    assertTrue(schema.path("properties").has("nodes"));
  }

  @Test
  @DisplayName(
      "runtimes list shows every built-in runtime; show prints image and packages; unknown exits 1")
  void runtimes() {
    Run list = run("runtimes", "list");
    assertEquals(0, list.exit());
    for (String name : new String[] {"torch", "deepspeed", "mpi", "mlx", "jax", "plain"}) {
      assertTrue(
          Stream.of(list.out().split("\n")).anyMatch(l -> l.startsWith(name + " ")),
          name + " in\n" + list.out());
    }
    Run show = run("runtimes", "show", "deepspeed");
    assertTrue(
        show.out().contains("image:")
            && show.out().contains("packages:")
            && show.out().contains("launcher also trains"),
        show.out());
    assertEquals(1, run("runtimes", "show", "nope").exit());
  }

  @Test
  @DisplayName(
      "runtimes show says each image's Python, CUDA driver floor, who owns HOME and the Pod Security level")
  void runtimesShowImageFacts() {
    String deepspeed = run("runtimes", "show", "deepspeed").out();
    assertTrue(deepspeed.contains("python:      3.10\n"), deepspeed);
    assertTrue(deepspeed.contains("cuda:        13.1, needs NVIDIA driver >= 580"), deepspeed);
    assertTrue(
        deepspeed.contains(
            "home /home/mpiuser (the image's: nothing is mounted over it; scratch at /home/mpiuser/.cache)"),
        deepspeed);
    assertTrue(deepspeed.contains("security:    Pod Security restricted\n"), deepspeed);
    assertTrue(
        run("runtimes", "show", "mlx")
            .out()
            .contains("Pod Security restricted (keeps NET_BIND_SERVICE)"));
    String torch = run("runtimes", "show", "torch").out();
    assertTrue(
        torch.contains("needs more than restricted: runs as root (uid 0)")
            && torch.contains("home /root (a writable emptyDir)"),
        torch);
    String mpi = run("runtimes", "show", "mpi").out();
    assertTrue(
        mpi.contains("python:      none\n") && mpi.contains("cuda:        none (CPU image)"), mpi);
    String jax = run("runtimes", "show", "jax").out();
    assertTrue(
        jax.contains("setup:       python -c 'import kubernetes'")
            && jax.contains("  - kubernetes 37.0.2"),
        jax);
  }

  @Test
  @DisplayName(
      "runtimes show of a -1 version, which predates python:/cuda:, never calls a CUDA image a CPU image: it names the same-image version that states them")
  void runtimesShowOlderVersion() {
    String torch = run("runtimes", "show", "torch@2.13.0-1").out();
    assertTrue(
        torch.contains(
            "python:      not stated by this version; torch@2.13.0-2 (the same image) states 3.12\n"),
        torch);
    assertTrue(
        torch.contains(
            "cuda:        not stated by this version; torch@2.13.0-2 (the same image) states 13.0"
                + " (GPU pods of this version check their GPUs but not the NVIDIA driver version)\n"),
        torch);
    assertFalse(torch.contains("CPU image"), torch);
    String jax = run("runtimes", "show", "jax@25.10-1").out();
    assertTrue(
        jax.contains(
            "cuda:        not stated by this version; jax@25.10-2 (the same image) states 13.0"),
        jax);
    String mpi = run("runtimes", "show", "mpi@0.6.0-1").out();
    assertTrue(
        mpi.contains("python:      none\n") && mpi.contains("cuda:        none (CPU image)\n"),
        mpi);
    assertTrue(
        mpi.contains(
            "security:    Pod Security baseline: this version does not declare `podSecurity: restricted`, so its pods"
                + " get no restricted securityContext and a namespace enforcing restricted rejects them; mpi@0.6.0-2 (the same image) declares it\n"),
        mpi);
    assertTrue(
        run("runtimes", "show", "torch@2.13.0-1")
            .out()
            .contains("needs more than restricted: runs as root (uid 0)"));
    String plain = run("runtimes", "show", "plain@3.12-1").out();
    assertTrue(
        plain.contains(
                "python:      not stated by this version; plain@3.12-2 (the same image) states 3.12\n")
            && plain.contains("cuda:        none (CPU image)\n"),
        plain);
  }
}
