package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.testing.Wording;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** runtime.yaml to RuntimeDefinition: the MPI-section rule and the defaults of left-out fields. */
class RuntimeBinderTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String HEAD =
      "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: r\nversion: 1.0-1\n";

  private static StageResult<RuntimeDefinition> bind(String rest) {
    var doc =
        new YamlDocumentLoader()
            .load(new SourceFile("r/1.0-1/runtime.yaml", HEAD + rest))
            .value()
            .orElseThrow();
    return RuntimeBinder.bind(doc, "platform runtimes/");
  }

  private static Diagnostic onlyError(StageResult<RuntimeDefinition> r) {
    assertTrue(r.value().isEmpty());
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(DiagnosticCode.INVALID_RUNTIME, d.code());
    assertTrue(d.isError());
    assertEquals("r/1.0-1/runtime.yaml", d.location().file());
    return d;
  }

  @Test
  @DisplayName("an MPI framework without an mpi: section is E303 at the framework line")
  void mpiFrameworkNeedsSection() {
    Diagnostic d = onlyError(bind("framework: deepspeed\nimage: img\n"));
    WORDING.approve(d.message());
    assertEquals("/framework", d.pointer());
    assertEquals(5, d.location().line());
  }

  @Test
  @DisplayName("an mpi: section on a non-MPI framework is E303 at the mpi line")
  void mpiSectionOnlyForMpi() {
    Diagnostic d = onlyError(bind("framework: torch\nimage: img\nmpi:\n  sshPort: 22\n"));
    WORDING.approve(d.message());
    assertEquals("/mpi", d.pointer());
    assertEquals(8, d.location().line()); // the mapping value under `mpi:`
  }

  @Test
  @DisplayName(
      "left-out fields get their defaults: resources 0 GPUs, 2 cpu, 8Gi, launcher 1/2Gi; uid 0, /root; no skeleton")
  void defaults() {
    RuntimeDefinition r = bind("framework: torch\nimage: img\n").value().orElseThrow();
    assertEquals(new RuntimeResources(0, "2", "8Gi", "1", "2Gi"), r.resources());
    assertEquals(new RuntimeDefinition.RuntimeUser(0, "/root", false), r.user());
    assertEquals("", r.description());
    assertEquals(List.of(), r.packages());
    assertEquals(Optional.empty(), r.mpi());
    assertEquals(0, r.skeleton().size());
    assertEquals("platform runtimes/", r.origin());
    assertEquals(Framework.TORCH, r.framework());
    assertEquals("img", r.image());
  }

  @Test
  @DisplayName(
      "written fields are read: resources, user, packages, jobset skeleton, and MPI settings with their defaults")
  void writtenFields() {
    RuntimeDefinition r =
        bind("framework: mpi\nimage: img\ndescription: d\npackages: [a, b]\n"
                + "resources: {gpus: 8, cpu: \"16\", memory: 64Gi, launcherCpu: \"3\", launcherMemory: 5Gi}\n"
                + "user: {uid: 1000, home: /home/u}\nmpi: {implementation: Intel}\njobset: {spec: {network: {enableDNSHostnames: true}}}\n")
            .value()
            .orElseThrow();
    assertEquals(new RuntimeResources(8, "16", "64Gi", "3", "5Gi"), r.resources());
    assertEquals(new RuntimeDefinition.RuntimeUser(1000, "/home/u", false), r.user());
    assertEquals("d", r.description());
    assertEquals(List.of("a", "b"), r.packages());
    assertEquals(Optional.of(new MpiSettings(MpiImplementation.INTEL, 2222, false)), r.mpi());
    assertTrue(r.skeleton().path("spec").path("network").path("enableDNSHostnames").asBoolean());
    RuntimeDefinition m =
        bind("framework: mpi\nimage: img\nmpi: {sshPort: 2200, launcherAsNode: true}\n")
            .value()
            .orElseThrow();
    assertEquals(Optional.of(new MpiSettings(MpiImplementation.OPEN_MPI, 2200, true)), m.mpi());
  }

  @Test
  @DisplayName(
      "podSecurity: restricted with uid 0 (or no uid) is E303 at the podSecurity line; with a non-root uid it binds")
  void restrictedNeedsNonRoot() {
    Diagnostic d = onlyError(bind("framework: torch\nimage: img\npodSecurity: restricted\n"));
    assertEquals("/podSecurity", d.pointer());
    WORDING.approve(d.message());
    assertEquals(7, d.location().line());
    assertEquals(
        "/podSecurity",
        onlyError(bind("framework: torch\nimage: img\npodSecurity: restricted\nuser: {uid: 0}\n"))
            .pointer());
    RuntimeDefinition r =
        bind("framework: torch\nimage: img\npodSecurity: restricted\nuser: {uid: 1000, home: /home/u}\n"
                + "addCapabilities: [NET_BIND_SERVICE]\n")
            .value()
            .orElseThrow();
    assertEquals(
        new RuntimeDefinition.PodSecurity(true, List.of("NET_BIND_SERVICE")), r.security());
    assertEquals("restricted", r.security().level());
  }

  @Test
  @DisplayName(
      "without podSecurity a runtime is baseline with no added capabilities; python, cuda and setup default to none")
  void securityAndContentsDefaults() {
    RuntimeDefinition r = bind("framework: torch\nimage: img\n").value().orElseThrow();
    assertEquals(new RuntimeDefinition.PodSecurity(false, List.of()), r.security());
    assertEquals("baseline", r.security().level());
    assertEquals(new RuntimeDefinition.ImageContents("", "", 0), r.contents());
    assertEquals("", r.setup());
    assertTrue(r.digest().matches("sha256:[0-9a-f]{64}"), r.digest());
    assertEquals("r@1.0-1", r.ref());
  }

  @Test
  @DisplayName("python, cuda version and driver floor, setup and imageOwnsHome are read as written")
  void contentsRead() {
    RuntimeDefinition r =
        bind("framework: torch\nimage: img\npython: \"3.12\"\ncuda: {version: \"13.0\", driverFloor: 580}\n"
                + "setup: pip install x\nuser: {uid: 1000, home: /home/u, imageOwnsHome: true}\n")
            .value()
            .orElseThrow();
    assertEquals(new RuntimeDefinition.ImageContents("3.12", "13.0", 580), r.contents());
    assertEquals("pip install x", r.setup());
    assertEquals(new RuntimeDefinition.RuntimeUser(1000, "/home/u", true), r.user());
    assertTrue(!r.user().isRoot());
  }

  @Test
  @DisplayName(
      "an MPI framework with an empty mpi: mapping gets Open MPI on port 2222 with a separate launcher; MPICH is read")
  void mpiDefaults() {
    assertEquals(
        Optional.of(new MpiSettings(MpiImplementation.OPEN_MPI, 2222, false)),
        bind("framework: mlx\nimage: img\nmpi: {}\n").value().orElseThrow().mpi());
    assertEquals(
        Optional.of(new MpiSettings(MpiImplementation.MPICH, 2222, false)),
        bind("framework: deepspeed\nimage: img\nmpi: {implementation: MPICH}\n")
            .value()
            .orElseThrow()
            .mpi());
  }

  @Test
  @DisplayName(
      "the MPI rule and the skeleton rule are reported together: every problem of the file at once")
  void problemsTogether() {
    StageResult<RuntimeDefinition> r =
        bind(
            "framework: torch\nimage: img\nmpi: {}\npodSecurity: restricted\n"
                + "jobset: {spec: {replicatedJobs: [{name: worker}]}}\n");
    assertTrue(r.value().isEmpty());
    assertEquals(
        List.of("/mpi", "/jobset/spec/replicatedJobs/0/name", "/podSecurity"),
        r.diagnostics().stream().map(Diagnostic::pointer).toList());
  }
}
