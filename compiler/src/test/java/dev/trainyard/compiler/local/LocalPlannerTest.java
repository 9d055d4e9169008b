package dev.trainyard.compiler.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.render.CheckpointParts;
import dev.trainyard.compiler.render.SetupLine;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalPlanner} on JobSets the real compiler emits. */
class LocalPlannerTest {
  @TempDir Path tmp;

  private OutputTree compile(String trainYaml) {
    CompileResult r = TrainProject.create(tmp, trainYaml).compile();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    return TrainProject.tree(r);
  }

  private static LocalPlanner.Settings settings(int nodes, int procs, Map<String, String> secrets) {
    AtomicInteger next = new AtomicInteger(40000);
    return new LocalPlanner.Settings(
        nodes, procs, name -> Optional.ofNullable(secrets.get(name)), next::incrementAndGet);
  }

  @Test
  @DisplayName(
      "torch: each node gets its pod's env with its completion index, 127.0.0.1 and one free port for all")
  void torchNodes() {
    LocalPlanner.Result r =
        LocalPlanner.plan(
            compile(
                "run: torchrun train.py\nnodes: 2\nprocsPerNode: 3\nenv: {A: '$(NNODES)-$$x'}\n"),
            settings(0, 0, Map.of()));
    assertEquals(List.of(), r.problems());
    LocalPlan plan = r.plan().orElseThrow();
    assertEquals("torch", plan.framework());
    assertEquals(6, plan.expectedWorld());
    assertEquals(40, plan.commit().length());
    assertEquals(2, plan.nodes().size());
    LocalNode one = plan.nodes().get(1);
    assertEquals("node-1", one.name());
    assertEquals("1", one.get("PET_NODE_RANK"));
    assertEquals("1", one.get("NODE_RANK"));
    assertEquals("127.0.0.1", one.get("MASTER_ADDR"));
    assertEquals("127.0.0.1", one.get("PET_MASTER_ADDR"));
    String port = one.get("MASTER_PORT");
    assertTrue(Integer.parseInt(port) > 40000, port);
    assertEquals(port, plan.nodes().get(0).get("PET_MASTER_PORT"));
    assertEquals("127.0.0.1:" + port, one.get("PET_RDZV_ENDPOINT"));
    assertEquals("torchrun train.py", one.get("TRAINYARD_RUN"));
    assertEquals("jobs/demo", one.workdir());
    assertEquals("0", plan.nodes().get(0).get("NODE_RANK"));
    assertTrue(plan.runName().startsWith("demo-"), plan.runName());
  }

  @Test
  @DisplayName(
      "--nodes scales NNODES and PET_NNODES down, --procs sets PET_NPROC_PER_NODE; more nodes are refused")
  void scaling() {
    OutputTree tree = compile("run: torchrun train.py\nnodes: 3\nprocsPerNode: 2\n");
    LocalPlan plan = LocalPlanner.plan(tree, settings(2, 1, Map.of())).plan().orElseThrow();
    assertEquals(2, plan.nodes().size());
    assertEquals("2", plan.nodes().get(0).get("NNODES"));
    assertEquals("2", plan.nodes().get(0).get("PET_NNODES"));
    assertEquals("1", plan.nodes().get(0).get("PET_NPROC_PER_NODE"));
    assertEquals(2, plan.expectedWorld());
    LocalPlanner.Result up = LocalPlanner.plan(tree, settings(4, 0, Map.of()));
    assertTrue(up.plan().isEmpty());
    assertEquals(
        List.of(
            "--nodes 4 is more than the 3 node(s) train.yaml compiles to; --nodes may only scale down"),
        up.problems());
    assertEquals(
        3, LocalPlanner.plan(tree, settings(3, 0, Map.of())).plan().orElseThrow().nodes().size());
    LocalPlanner.Result more = LocalPlanner.plan(tree, settings(0, 3, Map.of()));
    assertTrue(more.plan().isEmpty());
    assertEquals(
        List.of(
            "--procs 3 is more than the 2 process(es) per node train.yaml compiles to; --procs may only scale down"),
        more.problems());
    assertEquals(
        "2",
        LocalPlanner.plan(tree, settings(0, 2, Map.of()))
            .plan()
            .orElseThrow()
            .nodes()
            .get(0)
            .get("PET_NPROC_PER_NODE"),
        "--procs at the compiled count");
    OutputTree plain = compile("runtime: jax\nrun: python train.py\nnodes: 2\n");
    assertEquals(
        List.of(
            "--procs 2 is more than the 1 process(es) per node train.yaml compiles to; --procs may only scale down"),
        LocalPlanner.plan(plain, settings(0, 2, Map.of())).problems(),
        "one process per node");
  }

  @Test
  @DisplayName("jax: coordinator on 127.0.0.1 with the free port, process id from the index")
  void jax() {
    LocalPlan plan =
        LocalPlanner.plan(
                compile("runtime: jax\nrun: python train.py\nnodes: 2\n"), settings(0, 0, Map.of()))
            .plan()
            .orElseThrow();
    assertEquals("jax", plan.framework());
    LocalNode one = plan.nodes().get(1);
    assertEquals("1", one.get("JAX_PROCESS_ID"));
    assertEquals("2", one.get("JAX_NUM_PROCESSES"));
    assertEquals("127.0.0.1:" + one.get("MASTER_PORT"), one.get("JAX_COORDINATOR_ADDRESS"));
  }

  @Test
  @DisplayName(
      "a Secret's env value comes from the lookup; a missing one is a problem naming the variable")
  void secrets() {
    OutputTree tree =
        compile(
            "runtime: plain\nrun: python t.py\nsecrets:\n  - {name: hf-token, key: token, env: HF_TOKEN}\n");
    LocalPlanner.Result missing = LocalPlanner.plan(tree, settings(0, 0, Map.of()));
    assertTrue(missing.plan().isEmpty());
    assertEquals(
        List.of(
            "the Secret hf-token (key token) fills HF_TOKEN: set HF_TOKEN in your environment or in --secret-file (values never come from the GitOps repo)"),
        missing.problems());
    LocalPlan plan =
        LocalPlanner.plan(tree, settings(0, 0, Map.of("HF_TOKEN", "v"))).plan().orElseThrow();
    assertEquals("v", plan.nodes().get(0).get("HF_TOKEN"));
    assertEquals("plain", plan.framework());
    assertEquals(1, plan.expectedWorld());
  }

  @Test
  @DisplayName(
      "mpi on 1 node (the launcher is the node: one replicated job) and deepspeed (an MPI launcher too) are planned as one launcher")
  void mpiOneNodeAndDeepSpeed() {
    LocalPlan one =
        LocalPlanner.plan(
                compile("runtime: mpi\nrun: python hello.py\nprocsPerNode: 2\n"),
                settings(0, 0, Map.of()))
            .plan()
            .orElseThrow();
    assertEquals(2, one.expectedWorld());
    assertEquals("localhost slots=2\n", one.mpi().orElseThrow().hostfile());
    LocalPlan ds =
        LocalPlanner.plan(
                compile("runtime: deepspeed\nrun: python train.py\nnodes: 2\nprocsPerNode: 1\n"),
                settings(0, 0, Map.of()))
            .plan()
            .orElseThrow();
    assertEquals("deepspeed", ds.framework());
    assertEquals(2, ds.expectedWorld());
    assertEquals("launcher", ds.nodes().get(0).name());
  }

  @Test
  @DisplayName("an output tree without a JobSet is a problem")
  void noJobSet() {
    LocalPlanner.Result r =
        LocalPlanner.plan(
            new OutputTree(new TreeMap<>(Map.of("a/b.yaml", "x: 1\n")), List.of()),
            settings(0, 0, Map.of()));
    assertEquals(List.of("the compiled output holds no JobSet"), r.problems());
  }

  @Test
  @DisplayName(
      "JAX, plain and MPI declare no rendezvous port: MASTER_PORT and JAX's coordinator still get this host's free port, one for all nodes, so two local runs never join each other")
  void undeclaredRendezvousPortIsFree() {
    for (String runtime : List.of("jax", "plain", "mpi")) {
      LocalPlan plan =
          LocalPlanner.plan(
                  compile("runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n"),
                  settings(0, 0, Map.of()))
              .plan()
              .orElseThrow();
      LocalNode last = plan.nodes().get(plan.nodes().size() - 1);
      String port = last.get("MASTER_PORT");
      assertTrue(Integer.parseInt(port) > 40000, runtime + ": " + port);
      assertEquals(port, plan.nodes().get(0).get("MASTER_PORT"), runtime);
      if (runtime.equals("jax")) {
        assertEquals("127.0.0.1:" + port, last.get("JAX_COORDINATOR_ADDRESS"));
      }
    }
    // asked once per declared container port (torch: c10d 29500 and alive 29499) and once for an
    // undeclared MASTER_PORT (jax: alive 29499 + 29500), as Settings documents
    for (String[] shape : new String[][] {{"torch", "2"}, {"jax", "2"}, {"plain", "2"}}) {
      AtomicInteger asked = new AtomicInteger();
      LocalPlanner.plan(
          compile("runtime: " + shape[0] + "\nrun: python train.py\nnodes: 2\n"),
          new LocalPlanner.Settings(
              0, 0, name -> Optional.empty(), () -> 45000 + asked.incrementAndGet()));
      assertEquals(Integer.parseInt(shape[1]), asked.get(), shape[0]);
    }
    // a second plan asks for new ports: two runs side by side do not meet
    AtomicInteger next = new AtomicInteger(50000);
    LocalPlanner.Settings other =
        new LocalPlanner.Settings(0, 0, name -> Optional.empty(), next::incrementAndGet);
    OutputTree jax = compile("runtime: jax\nrun: python train.py\nnodes: 2\n");
    String first =
        LocalPlanner.plan(jax, other).plan().orElseThrow().nodes().get(0).get("MASTER_PORT");
    String second =
        LocalPlanner.plan(jax, other).plan().orElseThrow().nodes().get(0).get("MASTER_PORT");
    assertFalse(first.equals(second), first);
  }

  @Test
  @DisplayName("MASTER_PORT is taken only as a literal port number of the node container")
  void rendezvousPort() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertEquals(
        Optional.of("29500"),
        LocalPlanner.rendezvousPort(
            json.readTree(
                "[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"MASTER_PORT\",\"value\":\"29500\"}]")));
    assertEquals(
        Optional.empty(),
        LocalPlanner.rendezvousPort(
            json.readTree("[{\"name\":\"MASTER_PORT\",\"value\":\"$(P)\"}]")));
    assertEquals(
        Optional.empty(),
        LocalPlanner.rendezvousPort(json.readTree("[{\"name\":\"PORT\",\"value\":\"29500\"}]")));
  }

  @Test
  @DisplayName("the kubelet's $(VAR) and $$ rules; an undefined $(VAR) stays as written")
  void expand() {
    Map<String, String> defined = Map.of("A", "1");
    assertEquals("1-$(B)-$x-$", LocalPlanner.expand("$(A)-$(B)-$$x-$", defined));
    assertEquals("plain", LocalPlanner.expand("plain", defined));
  }

  @Test
  @DisplayName(
      "hostnames of the run's subdomain become 127.0.0.1; declared ports are replaced, others stay")
  void rewrite() {
    LocalPlanner.Rewrite rw = new LocalPlanner.Rewrite("r-1", Map.of("29500", "41000"));
    assertEquals("127.0.0.1:41000", rw.apply("r-1-node-0-0.r-1:29500"));
    assertEquals("127.0.0.1", rw.apply("r-1-node-0-0.r-1.default.svc.cluster.local"));
    assertEquals("41000", rw.apply("29500"));
    assertEquals("127.0.0.1:8080", rw.apply("r-1-node-0-1.r-1:8080"));
    assertEquals("other.host:29500", rw.apply("other.host:29500"));
    assertEquals("x", new LocalPlanner.Rewrite("", Map.of()).apply("x"));
  }

  @Test
  @DisplayName(
      "checkpoint: the volume's paths become the local folder (CHECKPOINT_DIR its run folder), TRAINYARD_ATTEMPT 0; the node script runs the pod's checkpoint lines first")
  void checkpoints() {
    OutputTree tree = compile("run: python train.py\nnodes: 2\ncheckpoint: {keep: 2}\n");
    AtomicInteger next = new AtomicInteger(40000);
    LocalPlan plan =
        LocalPlanner.plan(
                tree,
                new LocalPlanner.Settings(
                    0,
                    0,
                    name -> Optional.empty(),
                    next::incrementAndGet,
                    Optional.of(new LocalPlanner.Checkpoints("/home/me/ck", "abc123-2"))))
            .plan()
            .orElseThrow();
    for (LocalNode node : plan.nodes()) {
      assertEquals("/home/me/ck", node.get("TRAINYARD_CHECKPOINT_ROOT"));
      assertEquals("/home/me/ck/abc123-2", node.get("CHECKPOINT_DIR"));
      assertEquals("0", node.get("TRAINYARD_ATTEMPT"));
      assertEquals("2", node.get("TRAINYARD_CHECKPOINT_KEEP"));
      assertTrue(LocalRunner.script(node).startsWith(CheckpointParts.SCRIPT));
    }
    LocalNode compiled =
        LocalPlanner.plan(tree, settings(0, 0, Map.of())).plan().orElseThrow().nodes().get(0);
    assertTrue(
        compiled.get("CHECKPOINT_DIR").startsWith("/checkpoints/"),
        "without a local folder the compiled paths stay: " + compiled.env());
    LocalNode plain =
        LocalPlanner.plan(
                compile("run: python train.py\n"),
                new LocalPlanner.Settings(
                    0,
                    0,
                    name -> Optional.empty(),
                    next::incrementAndGet,
                    Optional.of(new LocalPlanner.Checkpoints("/home/me/ck", "x"))))
            .plan()
            .orElseThrow()
            .nodes()
            .get(0);
    assertEquals("", plain.get("CHECKPOINT_DIR"), "no checkpoint: nothing added");
    assertFalse(
        LocalRunner.script(plain).contains("TRAINYARD_CHECKPOINT_ROOT"), "no checkpoint lines");
  }

  @Test
  @DisplayName(
      "mpi: one launcher process with its pod's env; the compiled mpirun with a localhost hostfile of nodes × slots, -np and --wdir made local, its -x flags kept")
  void mpiLauncher() {
    OutputTree tree =
        compile("runtime: mpi\nnodes: 2\nprocsPerNode: 2\nrun: python3 hello.py\nenv: {A: b}\n");
    LocalPlan plan = LocalPlanner.plan(tree, settings(0, 0, Map.of())).plan().orElseThrow();
    assertEquals("mpi", plan.framework());
    assertEquals(4, plan.expectedWorld());
    assertEquals(1, plan.nodes().size());
    LocalNode launcher = plan.nodes().get(0);
    assertEquals("launcher", launcher.name());
    assertEquals("127.0.0.1", launcher.get("MASTER_ADDR"));
    assertEquals("python3 hello.py", launcher.get("TRAINYARD_RUN"));
    assertEquals("2", launcher.get("NNODES"));
    assertEquals("jobs/demo", launcher.workdir());
    MpiLaunch mpi = plan.mpi().orElseThrow();
    assertEquals("localhost slots=4\n", mpi.hostfile());
    assertEquals("/etc/mpi/hostfile", mpi.compiledHostfile());
    assertEquals(4, mpi.world());
    String last = mpi.script().strip().lines().reduce((a, b) -> b).orElseThrow();
    assertTrue(
        last.startsWith(
            "exec mpirun --hostfile \"$TRAINYARD_LOCAL_HOSTFILE\" -np 4 --wdir \"$PWD\" -x PATH "),
        last);
    assertTrue(last.contains(" -x A "), last);
    assertTrue(last.endsWith("\"${forward[@]}\" " + MpiLaunch.RANK), last);
    assertTrue(mpi.script().contains("forward=()\nfor name in $(compgen -e); do"), mpi.script());
    assertTrue(mpi.script().startsWith(SetupLine.TEXT), mpi.script());

    assertEquals("2", launcher.get("OMPI_MCA_orte_set_default_slots"), "the launcher pod's env");
    assertEquals("void", launcher.get("NVIDIA_VISIBLE_DEVICES"), "the launcher pod's env");
    assertTrue(
        LocalPlanner.plan(tree, settings(2, 0, Map.of())).plan().isPresent(), "--nodes 2 of 2");
    LocalPlan scaled = LocalPlanner.plan(tree, settings(1, 1, Map.of())).plan().orElseThrow();
    assertEquals("1", scaled.nodes().get(0).get("OMPI_MCA_orte_set_default_slots"));
    assertEquals(1, scaled.expectedWorld());
    assertEquals("localhost slots=1\n", scaled.mpi().orElseThrow().hostfile());
    assertEquals("1", scaled.nodes().get(0).get("NNODES"));
    assertTrue(scaled.mpi().orElseThrow().script().contains(" -np 1 "));
    LocalPlanner.Result huge = LocalPlanner.plan(tree, settings(0, 99999, Map.of()));
    assertTrue(huge.plan().isEmpty(), "--procs 99999 would start mpirun -np 199998");
    assertEquals(
        List.of(
            "--procs 99999 is more than the 2 process(es) per node train.yaml compiles to; --procs may only scale down"),
        huge.problems());
    LocalPlanner.Result up = LocalPlanner.plan(tree, settings(3, 0, Map.of()));
    assertTrue(up.plan().isEmpty());
    assertEquals(
        List.of(
            "--nodes 3 is more than the 2 node(s) train.yaml compiles to; --nodes may only scale down"),
        up.problems());
  }

  @Test
  @DisplayName(
      "MpiLaunch refuses a launch.sh without the mpirun line it knows, naming the line; a missing forward block is an empty one")
  void mpiLaunchShapes() {
    String hostfile = "a.b slots=2\n";
    assertEquals(
        Optional.of("the compiled launch.sh or hostfile has no mpirun line or slots"),
        MpiLaunch.of("echo hi\n", hostfile, 2, 0).problem());
    assertEquals(
        Optional.of("the compiled launch.sh or hostfile has no mpirun line or slots"),
        MpiLaunch.of("mpirun -np 2 x\n", "nonsense\n", 2, 0).problem());
    assertEquals(
        Optional.of(
            "the compiled mpirun line is not in the form run --local knows: mpirun -np 2 ./a"),
        MpiLaunch.of("mpirun -np 2 ./a\n", hostfile, 2, 0).problem());
    for (String line :
        List.of(
            "mpirun --hostfile /h --wdir /w /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\" &",
            "mpirun --hostfile /h -np 2 /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\" &",
            "mpirun --hostfile /h -np 2 --wdir /w /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\"")) {
      assertEquals(
          Optional.of("the compiled mpirun line is not in the form run --local knows: " + line),
          MpiLaunch.of(line + "\n", hostfile, 2, 0).problem());
    }
    String noHostfile = "mpirun -np 2 --wdir /w /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\" &";
    assertEquals(
        Optional.of("the compiled mpirun line is not in the form run --local knows: " + noHostfile),
        MpiLaunch.of(noHostfile + "\n", hostfile, 2, 0).problem());
    MpiLaunch mpich =
        MpiLaunch.of(
                "mpirun -f /etc/mpi/hostfile -np 4 -wdir '/w s' /bin/bash -eo pipefail -c"
                    + " \"$TRAINYARD_RUN\" &\n",
                "a:2\n",
                2,
                0)
            .launch()
            .orElseThrow();
    assertTrue(
        mpich
            .script()
            .endsWith(
                "forward=()\nexec mpirun -f \"$TRAINYARD_LOCAL_HOSTFILE\" -np 4 -wdir \"$PWD\" "
                    + MpiLaunch.RANK
                    + "\n"),
        mpich.script());
  }

  @Test
  @DisplayName("mpi: a compiled tree without the MPI ConfigMap is a problem, not a plan")
  void mpiWithoutConfigMap() {
    OutputTree tree = compile("runtime: mpi\nnodes: 2\nprocsPerNode: 1\nrun: ./a\n");
    SortedMap<String, String> files = new TreeMap<>(tree.files());
    files.keySet().removeIf(k -> k.endsWith("-mpi.yaml"));
    LocalPlanner.Result r =
        LocalPlanner.plan(new OutputTree(files, tree.ownedFolders()), settings(0, 0, Map.of()));
    assertTrue(r.plan().isEmpty());
    assertEquals(List.of("the compiled output holds no MPI ConfigMap"), r.problems());
  }

  @Test
  @DisplayName(
      "MpiLaunch: --procs equal to the compiled slots is allowed (-np nodes × slots); one more is refused")
  void mpiLaunchProcsBoundary() {
    String line =
        "mpirun -f /etc/mpi/hostfile -np 4 -wdir /w /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\" &\n";
    MpiLaunch same = MpiLaunch.of(line, "a:2\n", 2, 2).launch().orElseThrow();
    assertEquals(4, same.world());
    assertTrue(same.script().contains(" -np 4 "), same.script());
    assertEquals(
        Optional.of(LocalPlanner.tooManyProcs(3, 2)), MpiLaunch.of(line, "a:2\n", 2, 3).problem());
  }

  @Test
  @DisplayName(
      "a non-MPI JobSet with a second replicated job is a problem naming the framework, not a plan")
  void secondReplicatedJobWithoutMpi() throws Exception {
    OutputTree tree = compile("run: torchrun train.py\nnodes: 2\n");
    SortedMap<String, String> files = new TreeMap<>(tree.files());
    String key =
        files.keySet().stream().filter(k -> k.contains("/jobset-")).findFirst().orElseThrow();
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    ObjectNode jobSet = (ObjectNode) yaml.readTree(files.get(key));
    ArrayNode replicated = (ArrayNode) jobSet.at("/spec/replicatedJobs");
    replicated.add(replicated.get(0).deepCopy());
    files.put(key, yaml.writeValueAsString(jobSet));
    LocalPlanner.Result r =
        LocalPlanner.plan(new OutputTree(files, tree.ownedFolders()), settings(0, 0, Map.of()));
    assertTrue(r.plan().isEmpty());
    assertEquals(
        List.of(
            "the compiled JobSet has more than one replicated job and runtime framework torch is not"
                + " an MPI one; run --local knows torch, jax, plain and MPI runtimes"),
        r.problems());
  }

  @Test
  @DisplayName("a GPU pod's node name (the downward API's spec.nodeName) is localhost")
  void nodeNameIsLocalhost() {
    LocalPlan plan =
        LocalPlanner.plan(
                compile("run: torchrun train.py\nnodes: 2\nresources: {gpus: 1}\n"),
                settings(0, 0, Map.of()))
            .plan()
            .orElseThrow();
    assertEquals("localhost", plan.nodes().get(1).get("TRAINYARD_NODE_NAME"));
  }
}
