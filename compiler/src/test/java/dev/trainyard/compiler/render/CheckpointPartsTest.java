package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code checkpoint:} compiles into: the claim, the pod's volume, env and grace, the JobSet's
 * restart rules, and the script that finds the newest complete checkpoint (run by real bash here).
 */
class CheckpointPartsTest {
  @TempDir Path dir;

  private static final String NAMESPACE =
      "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q,"
          + " checkpoints: {storageClass: nfs, size: 100Gi, accessMode: ReadWriteMany, retention: 7d}}]";

  private TrainProject project(String trainYaml, String namespaces) {
    return TrainProject.create(dir.resolve("p"), trainYaml)
        .withPlatform(PlatformYaml.base().namespaces(namespaces).text());
  }

  private CompileResult twoNodes() {
    return project(
            "name: llm\nrun: torchrun t.py\nnodes: 2\ncheckpoint:\n  saveSeconds: 120\n  keep: 2\n"
                + "  recoverOnExitCodes: [75]\n",
            NAMESPACE)
        .compile();
  }

  @Test
  @DisplayName(
      "the claim: _checkpoint-<key>/persistentvolumeclaim-<key>.yaml with size, access mode, class, Filesystem, job and key labels")
  void claim() {
    CompileResult r = twoNodes();
    String key = r.job().orElseThrow().checkpoint().orElseThrow().key();
    String folder = "clusters/local/team-a/_checkpoint-" + key;
    Map<String, String> files = TrainProject.tree(r).files();
    assertTrue(files.containsKey(folder + "/kustomization.yaml"), files.keySet().toString());
    JsonNode pvc =
        TrainProject.parse("pvc", files.get(folder + "/persistentvolumeclaim-" + key + ".yaml"));
    assertEquals("PersistentVolumeClaim", pvc.path("kind").asText());
    assertEquals(key, pvc.path("metadata").path("name").asText());
    assertEquals("team-a", pvc.path("metadata").path("namespace").asText());
    assertEquals(
        key, pvc.path("metadata").path("labels").path("trainyard.dev/checkpoint").asText());
    assertEquals("llm", pvc.path("metadata").path("labels").path("trainyard.dev/job").asText());
    assertEquals(
        TrainProject.REMOTE,
        pvc.path("metadata").path("annotations").path("trainyard.dev/source-repo").asText());
    assertEquals(
        "jobs/demo/train.yaml",
        pvc.path("metadata").path("annotations").path("trainyard.dev/source-path").asText());
    assertTrue(
        pvc.path("metadata").path("annotations").path("trainyard.dev/last-used-at").isMissingNode(),
        "no submit time for a plain compile");
    assertEquals(
        "{\"accessModes\":[\"ReadWriteMany\"],\"resources\":{\"requests\":{\"storage\":\"100Gi\"}},"
            + "\"storageClassName\":\"nfs\",\"volumeMode\":\"Filesystem\"}",
        pvc.path("spec").toString());
    assertTrue(
        TrainProject.tree(r).ownedFolders().contains(folder),
        TrainProject.tree(r).ownedFolders().toString());
  }

  @Test
  @DisplayName("a submitted run stamps its submit time on the claim as trainyard.dev/last-used-at")
  void lastUsed() {
    Instant at = Instant.parse("2026-12-02T08:00:00Z");
    CompileResult r =
        project("name: llm\nrun: python t.py\ncheckpoint: {}\n", NAMESPACE)
            .compile(b -> b.createdAt(at));
    String text =
        TrainProject.tree(r).files().entrySet().stream()
            .filter(e -> e.getKey().contains("/persistentvolumeclaim-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    assertTrue(text.contains("trainyard.dev/last-used-at: \"2026-12-02T08:00:00Z\""), text);
  }

  @Test
  @DisplayName(
      "pods: the volume at path, CHECKPOINT_DIR, TRAINYARD_ATTEMPT from the restart-attempt label, keep, grace saveSeconds + 5")
  void pod() {
    JsonNode js = object(twoNodes(), "JobSet");
    JsonNode pod = podSpec(js, "node");
    String key = js.path("metadata").path("annotations").path("trainyard.dev/checkpoint").asText();
    String runId = js.path("metadata").path("name").asText().replaceFirst(".*-", "");
    assertEquals(125, pod.path("terminationGracePeriodSeconds").asInt());
    assertEquals("/checkpoints/" + runId, env(js, "node", "CHECKPOINT_DIR").path("value").asText());
    assertEquals(
        "/checkpoints", env(js, "node", "TRAINYARD_CHECKPOINT_ROOT").path("value").asText());
    assertEquals("2", env(js, "node", "TRAINYARD_CHECKPOINT_KEEP").path("value").asText());
    assertTrue(env(js, "node", "TRAINYARD_CHECKPOINT_FRESH").isMissingNode());
    assertEquals(
        "metadata.labels['jobset.sigs.k8s.io/restart-attempt']",
        env(js, "node", "TRAINYARD_ATTEMPT")
            .path("valueFrom")
            .path("fieldRef")
            .path("fieldPath")
            .asText());
    JsonNode mount = null;
    for (JsonNode m : pod.path("containers").path(0).path("volumeMounts")) {
      if (m.path("name").asText().equals("checkpoint")) {
        mount = m;
      }
    }
    assertEquals("{\"mountPath\":\"/checkpoints\",\"name\":\"checkpoint\"}", String.valueOf(mount));
    boolean volume = false;
    for (JsonNode v : pod.path("volumes")) {
      volume |= v.path("persistentVolumeClaim").path("claimName").asText().equals(key);
    }
    assertTrue(volume, pod.path("volumes").toString());
    assertEquals(
        "latest",
        js.path("metadata").path("annotations").path("trainyard.dev/checkpoint-resume").asText());
    String script = pod.path("containers").path(0).path("command").path(2).asText();
    assertTrue(script.indexOf(CheckpointParts.SCRIPT) >= 0, script);
    assertTrue(
        script.indexOf(CheckpointParts.SCRIPT) < script.indexOf("TRAINYARD_SETUP"),
        "RESUME_FROM is known before setup and run");
  }

  @Test
  @DisplayName(
      "--fresh: TRAINYARD_CHECKPOINT_FRESH=1 and the annotation says fresh; a shared claim is mounted with subPath <key>, no claim written")
  void freshAndShared() {
    String shared =
        "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q,"
            + " checkpoints: {claim: team-ckpt, accessMode: ReadWriteOnce}}]";
    CompileResult r =
        project("name: llm\nrun: python t.py\ncheckpoint: {}\n", shared)
            .compile(b -> b.fresh(true));
    JsonNode js = object(r, "JobSet");
    assertEquals("1", env(js, "node", "TRAINYARD_CHECKPOINT_FRESH").path("value").asText());
    assertEquals(
        "fresh",
        js.path("metadata").path("annotations").path("trainyard.dev/checkpoint-resume").asText());
    String key = js.path("metadata").path("annotations").path("trainyard.dev/checkpoint").asText();
    JsonNode pod = podSpec(js, "node");
    String mounts = pod.path("containers").path(0).path("volumeMounts").toString();
    assertTrue(
        mounts.contains(
            "{\"mountPath\":\"/checkpoints\",\"name\":\"checkpoint\",\"subPath\":\"" + key + "\"}"),
        mounts);
    assertTrue(pod.path("volumes").toString().contains("\"claimName\":\"team-ckpt\""));
    assertFalse(
        TrainProject.tree(r).files().keySet().stream().anyMatch(f -> f.contains("_checkpoint-")));
  }

  @Test
  @DisplayName(
      "JobSet: BlockingRecreate; RestartOnRecoverExitCode after RestartOnDisruption and before FailOnUserExitCode; pod rule 1 the recover codes")
  void restartRules() {
    JsonNode js = object(twoNodes(), "JobSet");
    JsonNode fp = js.path("spec").path("failurePolicy");
    assertEquals("BlockingRecreate", fp.path("restartStrategy").asText());
    assertEquals("RestartOnDisruption", fp.path("rules").path(0).path("name").asText());
    assertEquals(
        "{\"action\":\"RestartJobSet\",\"name\":\"RestartOnRecoverExitCode\",\"onJobFailureMessagePatterns\":"
            + "[\"^Container node for pod [^ ]+ failed with exit code [0-9]+ matching FailJob rule at index 1$\"],"
            + "\"onJobFailureReasons\":[\"PodFailurePolicy\"]}",
        fp.path("rules").path(1).toString());
    assertEquals("FailOnDeadline", fp.path("rules").path(2).path("name").asText());
    assertEquals("FailOnUserExitCode", fp.path("rules").path(3).path("name").asText());
    JsonNode rules =
        js.path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("podFailurePolicy")
            .path("rules");
    assertEquals(
        "DisruptionTarget", rules.path(0).path("onPodConditions").path(0).path("type").asText());
    assertEquals(
        "{\"action\":\"FailJob\",\"onExitCodes\":{\"containerName\":\"node\",\"operator\":\"In\",\"values\":[75]}}",
        rules.path(1).toString());
    assertEquals("NotIn", rules.path(2).path("onExitCodes").path("operator").asText());
    assertEquals(4, rules.size());
    String message =
        "Container node for pod ns/llm-abc-node-0-1-xyz failed with exit code 75 matching FailJob rule at index 1";
    Pattern recover = Pattern.compile(JobSetBuilder.RECOVER_EXIT_MESSAGE);
    assertTrue(recover.matcher(message).find());
    assertFalse(
        recover.matcher(message.replace("index 1", "index 2")).find(),
        "an ordinary non-zero exit (rule 2) is the user's");
    assertTrue(
        Pattern.compile(JobSetBuilder.USER_EXIT_MESSAGE).matcher(message).find(),
        "which is why the recover rule comes first");
  }

  @Test
  @DisplayName("checkpoint without recover codes: no recover rules, still BlockingRecreate")
  void noRecoverCodes() {
    JsonNode js =
        object(project("run: python t.py\ncheckpoint: {}\n", NAMESPACE).compile(), "JobSet");
    JsonNode fp = js.path("spec").path("failurePolicy");
    assertEquals("BlockingRecreate", fp.path("restartStrategy").asText());
    assertEquals(3, fp.path("rules").size());
    assertEquals(
        3,
        js.path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("podFailurePolicy")
            .path("rules")
            .size());
  }

  // --- the script, run by bash ---------------------------------------------------------------

  private Path root;

  private Path checkpoint(String run, String name, boolean complete, long secondsAgo)
      throws IOException {
    Path folder = root.resolve(run).resolve(name);
    Files.createDirectories(folder);
    Files.writeString(folder.resolve("model.pt"), "weights");
    if (complete) {
      Path marker = folder.resolve("COMPLETE");
      Files.writeString(marker, "");
      Files.setLastModifiedTime(marker, FileTime.from(Instant.now().minusSeconds(secondsAgo)));
    }
    return folder;
  }

  /** Runs {@link CheckpointParts#SCRIPT} with the env, then prints RESUME_FROM and the attempt. */
  private String[] run(String dirName, boolean fresh, int keep, String nodeRank) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            "bash",
            "-c",
            CheckpointParts.SCRIPT + "printf '%s\\n%s\\n' \"$RESUME_FROM\" \"$TRAINYARD_ATTEMPT\"");
    pb.environment().put("CHECKPOINT_DIR", root.resolve(dirName).toString());
    pb.environment().put("TRAINYARD_CHECKPOINT_ROOT", root.toString());
    pb.environment().put("TRAINYARD_CHECKPOINT_KEEP", Integer.toString(keep));
    pb.environment().put("NODE_RANK", nodeRank);
    pb.environment().remove("TRAINYARD_ATTEMPT");
    if (fresh) {
      pb.environment().put("TRAINYARD_CHECKPOINT_FRESH", "1");
    }
    pb.redirectErrorStream(false);
    Process p = pb.start();
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "script ended");
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), err);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return (out + err).split("\n", -1);
  }

  @Test
  @DisplayName(
      "RESUME_FROM: the newest folder with COMPLETE of any run of the job; a newer one without it (cut off by a kill) is never taken")
  void newestComplete() throws Exception {
    root = dir.resolve("ck");
    checkpoint("aaaaaa", "step-100", true, 300);
    Path newest = checkpoint("bbbbbb", "step-200", true, 100);
    checkpoint("bbbbbb", "step-300", false, 0);
    String[] out = run("cccccc", false, 5, "1");
    assertEquals(newest.toString(), out[0]);
    assertEquals("0", out[1], "TRAINYARD_ATTEMPT is 0 outside a JobSet");
    Instant saved =
        Files.getLastModifiedTime(newest.resolve("COMPLETE"))
            .toInstant()
            .truncatedTo(ChronoUnit.SECONDS);
    assertEquals(
        "trainyard: attempt 0 resumes from " + newest + " (saved " + saved + ")",
        out[2],
        "the resume line with the UTC time of the COMPLETE marker (docs/checkpoints.md)");
    assertTrue(Files.isDirectory(root.resolve("cccccc")), "CHECKPOINT_DIR is made");
  }

  @Test
  @DisplayName(
      "no complete checkpoint: RESUME_FROM empty and the log says the attempt starts fresh")
  void noneComplete() throws Exception {
    root = dir.resolve("ck");
    checkpoint("aaaaaa", "step-1", false, 0);
    String[] out = run("aaaaaa", false, 5, "0");
    assertEquals("", out[0]);
    assertEquals("trainyard: attempt 0 starts fresh: no complete checkpoint", out[2]);
    assertTrue(
        Files.exists(root.resolve("aaaaaa/step-1/model.pt")), "an unfinished one is not deleted");
  }

  @Test
  @DisplayName(
      "--fresh: only the run's own folder counts, so an older run's newer checkpoint is ignored")
  void freshScope() throws Exception {
    root = dir.resolve("ck");
    checkpoint("aaaaaa", "step-900", true, 10);
    String[] none = run("ffffff", true, 5, "1");
    assertEquals("", none[0]);
    Path own = checkpoint("ffffff", "step-5", true, 100);
    assertEquals(own.toString(), run("ffffff", true, 5, "1")[0]);
  }

  @Test
  @DisplayName(
      "keep: node 0 deletes complete checkpoints beyond the newest keep; other nodes delete nothing; unfinished ones stay")
  void keep() throws Exception {
    root = dir.resolve("ck");
    Path c1 = checkpoint("aaaaaa", "s1", true, 400);
    Path c2 = checkpoint("aaaaaa", "s2", true, 300);
    Path c3 = checkpoint("bbbbbb", "s3", true, 200);
    Path c4 = checkpoint("bbbbbb", "s4", true, 100);
    Path partial = checkpoint("bbbbbb", "s5", false, 0);
    run("bbbbbb", false, 2, "1");
    assertTrue(Files.exists(c1) && Files.exists(c2), "rank 1 deletes nothing");
    String[] out = run("bbbbbb", false, 2, "0");
    assertEquals(c4.toString(), out[0]);
    assertFalse(Files.exists(c1));
    assertFalse(Files.exists(c2));
    assertTrue(Files.exists(c3) && Files.exists(c4) && Files.exists(partial));
  }

  @Test
  @DisplayName(
      "keep never deletes the checkpoint being resumed from, even when --fresh makes an older one the newest")
  void keepSparesResume() throws Exception {
    root = dir.resolve("ck");
    Path own = checkpoint("ffffff", "s1", true, 500);
    checkpoint("aaaaaa", "s2", true, 100);
    String[] out = run("ffffff", true, 1, "0");
    assertEquals(own.toString(), out[0]);
    assertTrue(Files.exists(own));
  }
}
