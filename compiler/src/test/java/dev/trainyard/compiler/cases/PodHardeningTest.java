package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pods that hide what they must not see and pass the cluster's admission: CPU-only pods of CUDA
 * images get {@code NVIDIA_VISIBLE_DEVICES=void}; runtimes that declare Pod Security "restricted"
 * meet every restricted rule (kubernetes.io "Pod Security Standards", checked field by field
 * below); MPI-family pods opt out of service-mesh sidecars unless platform.yaml opts in
 * (mpi-operator#480).
 */
class PodHardeningTest {
  static final Set<String> RESTRICTED_VOLUMES =
      Set.of(
          "configMap",
          "csi",
          "downwardAPI",
          "emptyDir",
          "ephemeral",
          "persistentVolumeClaim",
          "projected",
          "secret");

  @TempDir Path dir;

  JsonNode jobSet(String yaml) {
    return object(TrainProject.create(dir, yaml).compile(), "JobSet");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "every pod that requests no GPU gets NVIDIA_VISIBLE_DEVICES=void (CUDA images bake in `all`)")
  void cpuPodsSeeNoGpu(String runtime) {
    JsonNode js = jobSet("runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n");
    for (String rjob : CaseCompile.replicatedJobNames(js)) {
      assertEquals(
          "void",
          env(js, rjob, "NVIDIA_VISIBLE_DEVICES").path("value").asText(),
          rjob + " of " + runtime);
    }
  }

  @Test
  @DisplayName(
      "GPU pods leave NVIDIA_VISIBLE_DEVICES to the device plugin; a separate MPI launcher without GPUs gets void")
  void gpuPodsKeepTheirDevices() {
    JsonNode torch = jobSet("runtime: torch\nrun: torchrun train.py\nresources: {gpus: 2}\n");
    assertTrue(env(torch, "node", "NVIDIA_VISIBLE_DEVICES").isMissingNode());
    JsonNode mpi =
        object(
            TrainProject.create(
                    dir.resolve("m"),
                    "runtime: mpi\nrun: ./allreduce\nnodes: 2\nresources: {gpus: 2}\n")
                .compile(),
            "JobSet");
    assertTrue(env(mpi, "node", "NVIDIA_VISIBLE_DEVICES").isMissingNode());
    assertEquals("void", env(mpi, "launcher", "NVIDIA_VISIBLE_DEVICES").path("value").asText());
    assertTrue(env(mpi, "launcher", "NVIDIA_DRIVER_CAPABILITIES").isMissingNode());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"mpi", "deepspeed", "mlx"})
  @DisplayName(
      "restricted runtimes: every pod meets Pod Security restricted, keeping only NET_BIND_SERVICE where sshd needs it")
  void restrictedPods(String runtime) {
    JsonNode js = jobSet("runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n");
    for (String rjob : CaseCompile.replicatedJobNames(js)) {
      List<String> violations = restrictedViolations(podSpec(js, rjob));
      assertEquals(List.of(), violations, rjob + " of " + runtime);
    }
    List<String> added = new ArrayList<>();
    podSpec(js, "launcher")
        .at("/containers/0/securityContext/capabilities/add")
        .forEach(c -> added.add(c.asText()));
    assertEquals(
        runtime.equals("deepspeed") ? List.of() : List.of("NET_BIND_SERVICE"), added, runtime);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "baseline runtimes (root images) keep root's capabilities and claim nothing restricted would reject them for")
  void baselinePodsUntouched(String runtime) {
    JsonNode spec = podSpec(jobSet("runtime: " + runtime + "\nrun: python train.py\n"), "node");
    assertTrue(spec.at("/securityContext/runAsNonRoot").isMissingNode());
    assertTrue(spec.at("/containers/0/securityContext").isMissingNode(), spec.toString());
    assertFalse(restrictedViolations(spec).isEmpty(), "uid 0 cannot pass restricted");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"mpi", "deepspeed", "mlx"})
  @DisplayName(
      "MPI-family pods carry sidecar.istio.io/inject \"false\" and linkerd.io/inject disabled")
  void mpiPodsOptOutOfMesh(String runtime) {
    JsonNode js = jobSet("runtime: " + runtime + "\nrun: python train.py\nnodes: 2\n");
    for (String rjob : CaseCompile.replicatedJobNames(js)) {
      JsonNode annotations =
          CaseCompile.replicatedJob(js, rjob).at("/template/spec/template/metadata/annotations");
      assertEquals("false", annotations.path("sidecar.istio.io/inject").asText(), rjob);
      assertEquals("disabled", annotations.path("linkerd.io/inject").asText(), rjob);
    }
  }

  @Test
  @DisplayName(
      "torch pods get no mesh annotations; platform.yaml serviceMesh.injectMpiPods: true lets the mesh into MPI pods")
  void meshAnnotationsOnlyForMpiUnlessOptedIn() {
    JsonNode torch = jobSet("runtime: torch\nrun: torchrun train.py\n");
    assertTrue(
        CaseCompile.replicatedJob(torch, "node")
            .at("/template/spec/template/metadata/annotations/sidecar.istio.io~1inject")
            .isMissingNode());
    String platform =
        "apiVersion: trainyard.dev/v1\nkind: Platform\nsecrets: {policy: plain, allowPlain: true}\n"
            + "serviceMesh: {injectMpiPods: true}\nclusters: [{name: local}]\nnamespaces: [{name: default, cluster: local}]\n"
            + "queues:\n  resourceFlavors: [{name: f}]\n  clusterQueues: [{name: q, flavors: [{name: f, quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
            + "  localQueues: [{name: default, namespace: default, clusterQueue: q}]\n";
    CompileResult r =
        TrainProject.create(dir.resolve("p"), "runtime: mpi\nrun: ./a.out\nnodes: 2\n")
            .withPlatform(platform)
            .compile();
    JsonNode mpi = object(r, "JobSet");
    for (String rjob : CaseCompile.replicatedJobNames(mpi)) {
      JsonNode annotations =
          CaseCompile.replicatedJob(mpi, rjob).at("/template/spec/template/metadata/annotations");
      assertTrue(
          annotations.path("sidecar.istio.io/inject").isMissingNode()
              && annotations.path("linkerd.io/inject").isMissingNode(),
          annotations.toString());
    }
  }

  /**
   * Pod Security Standards "restricted" (v1.25+ rules) over one pod spec: non-root, no privilege
   * escalation, capabilities dropped (only NET_BIND_SERVICE added), a RuntimeDefault or Localhost
   * seccomp profile, allowed volume types, no host namespaces or ports. Returns what breaks them.
   */
  static List<String> restrictedViolations(JsonNode pod) {
    List<String> out = new ArrayList<>();
    JsonNode psc = pod.path("securityContext");
    for (String list : new String[] {"initContainers", "containers"}) {
      for (JsonNode c : pod.path(list)) {
        JsonNode sc = c.path("securityContext");
        String name = c.path("name").asText();
        boolean nonRoot =
            sc.path("runAsNonRoot").asBoolean(psc.path("runAsNonRoot").asBoolean(false));
        long uid = sc.path("runAsUser").asLong(psc.path("runAsUser").asLong(-1));
        if (!nonRoot || uid == 0) {
          out.add(name + ": runAsNonRoot");
        }
        if (sc.path("allowPrivilegeEscalation").asBoolean(true)) {
          out.add(name + ": allowPrivilegeEscalation");
        }
        List<String> drop = new ArrayList<>();
        sc.path("capabilities").path("drop").forEach(d -> drop.add(d.asText()));
        if (!drop.contains("ALL")) {
          out.add(name + ": capabilities.drop ALL");
        }
        sc.path("capabilities")
            .path("add")
            .forEach(
                a -> {
                  if (!a.asText().equals("NET_BIND_SERVICE")) {
                    out.add(name + ": adds " + a.asText());
                  }
                });
        String seccomp =
            sc.path("seccompProfile")
                .path("type")
                .asText(psc.path("seccompProfile").path("type").asText(""));
        if (!Set.of("RuntimeDefault", "Localhost").contains(seccomp)) {
          out.add(name + ": seccompProfile");
        }
        if (sc.path("privileged").asBoolean(false)) {
          out.add(name + ": privileged");
        }
        c.path("ports")
            .forEach(
                p -> {
                  if (p.has("hostPort")) {
                    out.add(name + ": hostPort");
                  }
                });
      }
    }
    for (JsonNode v : pod.path("volumes")) {
      v.fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("name") && !RESTRICTED_VOLUMES.contains(f)) {
                  out.add("volume " + f);
                }
              });
    }
    for (String host : new String[] {"hostNetwork", "hostPID", "hostIPC"}) {
      if (pod.path(host).asBoolean(false)) {
        out.add(host);
      }
    }
    return out;
  }
}
