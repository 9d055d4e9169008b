package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The controller process, run as the Deployment's user (uid/gid and fsGroup read from {@code
 * controller/deploy/deployment.yaml}), reads its forge token from a Secret volume laid out as the
 * kubelet lays it out: {@code pkg/volume/util/atomic_writer.go} writes the files root-owned with
 * the volume's {@code defaultMode} into a timestamped folder behind the {@code ..data} and per-key
 * symlinks; then, only when the pod has an {@code fsGroup}, {@code pkg/volume/volume_linux.go}
 * ({@code SetVolumeOwnership} → {@code changeFilePermission}) gives every file and folder that
 * group and adds {@code 0440} (folders also setgid and {@code 0110}), skipping symlinks. The
 * container runtime runs the process with {@code runAsUser}, {@code runAsGroup} and the fsGroup as
 * a supplementary group ({@code setpriv} here). A server dry-run cannot see this (issue 18, item
 * 14); this test needs root (to own the files as root and to switch user) and {@code setpriv}, and
 * says NOT RUN otherwise.
 */
class TokenMountTest {

  static final Path DEPLOY = DeployManifestsTest.DEPLOY;
  static final String TOKEN = "ghp_mountTestToken0000000000000000000001";
  Path base;

  @BeforeEach
  void layout() throws IOException {
    assumeTrue(
        isRoot(),
        "NOT RUN: needs root to lay files out as the kubelet (root-owned) and to switch user");
    assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/setpriv")),
        "NOT RUN: no setpriv (util-linux) to switch user");
    base = Files.createTempDirectory("trainyard-token-mount");
    open(base);
  }

  @AfterEach
  void clean() throws IOException {
    if (base != null) {
      try (Stream<Path> all = Files.walk(base)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * The pod's user, group, fsGroup and the token volume's defaultMode, from the shipped Deployment.
   */
  record PodSettings(
      int runAsUser,
      int runAsGroup,
      Optional<Integer> fsGroup,
      int defaultMode,
      String mountPath) {}

  @SuppressWarnings("unchecked")
  static PodSettings shipped() throws IOException {
    Map<String, Object> d =
        new ObjectMapper(new YAMLFactory())
            .readValue(DEPLOY.resolve("deployment.yaml").toFile(), Map.class);
    Map<String, Object> pod = DeployManifestsTest.at(d, "spec", "template", "spec");
    Map<String, Object> sc = (Map<String, Object>) pod.get("securityContext");
    List<Map<String, Object>> volumes = (List<Map<String, Object>>) pod.get("volumes");
    Map<String, Object> volume =
        volumes.stream()
            .filter(
                v ->
                    "trainyard-forge-tokens"
                        .equals(DeployManifestsTest.at(v, "secret", "secretName")))
            .findFirst()
            .orElseThrow();
    List<Map<String, Object>> mounts = DeployManifestsTest.at(pod, "containers", 0, "volumeMounts");
    String mountPath =
        mounts.stream()
            .filter(m -> volume.get("name").equals(m.get("name")))
            .map(m -> (String) m.get("mountPath"))
            .findFirst()
            .orElseThrow();
    Object mode = DeployManifestsTest.at(volume, "secret", "defaultMode");
    return new PodSettings(
        (Integer) sc.get("runAsUser"),
        (Integer) sc.get("runAsGroup"),
        Optional.ofNullable((Integer) sc.get("fsGroup")),
        mode == null ? 0644 : (Integer) mode,
        mountPath);
  }

  @Test
  @DisplayName(
      "the shipped Deployment: the token file is root:65532 0440 and the controller, as uid 65532, reads it and goes on to the cluster")
  void shippedDeploymentReadsItsToken() throws Exception {
    PodSettings pod = shipped();
    assertEquals(Optional.of(65532), pod.fsGroup(), "the Deployment sets fsGroup");
    Path tokenFile = secretVolume(pod, Map.of("github-token", TOKEN));
    Path real = tokenFile.toRealPath();
    assertEquals("root", Files.getOwner(real).getName());
    assertEquals(65532, (Integer) Files.getAttribute(real, "unix:gid"));
    assertEquals("r--r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));
    Run run = controllerAs(pod);
    assertEquals(
        3,
        run.exit(),
        "past the token, stopped at the missing kubeconfig (exit 3): " + run.stderr());
    assertFalse(run.stderr().contains("status.forges"), run.stderr());
    assertFalse(run.stderr().contains(TOKEN), "never the token");
  }

  @Test
  @DisplayName(
      "the Deployment as it was (defaultMode 0400, no fsGroup): the file stays root:root and uid 65532 is refused, with a hint at fsGroup, not at the mount")
  void withoutFsGroupTheTokenIsUnreadable() throws Exception {
    PodSettings shipped = shipped();
    PodSettings before =
        new PodSettings(
            shipped.runAsUser(), shipped.runAsGroup(), Optional.empty(), 0400, shipped.mountPath());
    Path tokenFile = secretVolume(before, Map.of("github-token", TOKEN));
    assertEquals(0, (Integer) Files.getAttribute(tokenFile.toRealPath(), "unix:gid"));
    Run run = controllerAs(before);
    assertEquals(1, run.exit(), run.stderr());
    assertTrue(
        run.stderr()
            .contains(
                "status.forges[0].token: Secret trainyard-forge-tokens key github-token at "
                    + tokenFile
                    + " exists but this process may not read it"),
        run.stderr());
    assertTrue(run.stderr().contains("securityContext.fsGroup"), run.stderr());
    assertFalse(run.stderr().contains(TOKEN));
  }

  /**
   * The Secret volume at {@code base + pod.mountPath} as the kubelet leaves it: an emptyDir-like
   * root (0777), a timestamped folder (0755) holding each key root-owned with {@code defaultMode},
   * {@code ..data} and per-key symlinks; then the fsGroup ownership change when the pod has one.
   * Returns the token's path (a symlink).
   */
  Path secretVolume(PodSettings pod, Map<String, String> keys) throws IOException {
    Path root = base.resolve(pod.mountPath().substring(1));
    Files.createDirectories(root);
    open(root.getParent());
    Files.setPosixFilePermissions(root, mode(0777));
    Path ts = root.resolve("..2026_12_01_08_00_00.000000001");
    Files.createDirectory(ts);
    Files.setPosixFilePermissions(ts, mode(0755));
    for (Map.Entry<String, String> k : keys.entrySet()) {
      Path f = ts.resolve(k.getKey());
      Files.writeString(f, k.getValue(), StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(f, mode(pod.defaultMode()));
    }
    Files.createSymbolicLink(root.resolve("..data"), ts.getFileName());
    for (String key : keys.keySet()) {
      Files.createSymbolicLink(root.resolve(key), Path.of("..data").resolve(key));
    }
    if (pod.fsGroup().isPresent()) {
      int gid = pod.fsGroup().get();
      try (Stream<Path> all = Files.walk(root)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
          if (Files.isSymbolicLink(p)) {
            continue;
          }
          int m = (Integer) Files.getAttribute(p, "unix:mode") & 07777;
          int add = Files.isDirectory(p) ? 0440 | 0110 : 0440;
          Files.setPosixFilePermissions(p, mode(m | add));
          if (Files.isDirectory(p)) {
            chmodSetgid(p);
          }
        }
      }
    }
    return root.resolve(keys.keySet().iterator().next());
  }

  record Run(int exit, String stderr) {}

  /**
   * ControllerMain with a config like the shipped one, as {@code pod}'s user, on a copy of the test
   * classpath.
   */
  Run controllerAs(PodSettings pod) throws Exception {
    Path tokens = base.resolve(pod.mountPath().substring(1)).getParent();
    Path config = Files.createDirectories(base.resolve("etc/trainyard/controller"));
    Files.writeString(
        base.resolve("etc/trainyard/platform.yaml"),
        ConfigFileTest.PLATFORM
            + """
                status:
                  forges:
                  - {source: github.com, kind: github, api: https://api.github.com, token: {secret: trainyard-forge-tokens, key: github-token}}
                """);
    Files.writeString(
        config.resolve("controller.yaml"),
        "platform: " + base.resolve("etc/trainyard/platform.yaml") + "\ntokens: " + tokens + "\n");
    try (Stream<Path> all = Files.walk(base.resolve("etc"))) {
      for (Path p : all.toList()) {
        Files.setPosixFilePermissions(p, mode(Files.isDirectory(p) ? 0755 : 0644));
      }
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                "/usr/bin/setpriv", "--reuid=" + pod.runAsUser(), "--regid=" + pod.runAsGroup()));
    command.add(pod.fsGroup().map(g -> "--groups=" + g).orElse("--clear-groups"));
    command.addAll(
        List.of(
            "--",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:-UsePerfData",
            "-Xshare:off",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            readableClasspath(),
            "dev.trainyard.controller.ControllerMain",
            "--config=" + config.resolve("controller.yaml"),
            "--kubeconfig=" + base.resolve("no-such-kubeconfig"),
            "--no-leader-election",
            "--port=0"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("HOME", base.toString());
    pb.environment().remove("KUBECONFIG");
    Process p = pb.start();
    String err = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the controller did not stop");
    return new Run(p.exitValue(), err);
  }

  /**
   * The test classpath copied where any user may read it (the build's own folders may be under
   * /root).
   */
  String readableClasspath() throws IOException {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path dir = Files.createDirectories(base.resolve("cp"));
    List<String> out = new ArrayList<>();
    int i = 0;
    for (String entry : cp.split(File.pathSeparator)) {
      Path src = Path.of(entry);
      if (!Files.exists(src)) {
        continue;
      }
      Path dst = dir.resolve((i++) + "-" + src.getFileName());
      if (Files.isDirectory(src)) {
        try (Stream<Path> all = Files.walk(src)) {
          for (Path p : all.toList()) {
            Path t = dst.resolve(src.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(t);
            } else {
              Files.copy(p, t);
            }
          }
        }
      } else {
        Files.copy(src, dst);
      }
      out.add(dst.toString());
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.toList()) {
        Files.setPosixFilePermissions(p, mode(Files.isDirectory(p) ? 0755 : 0644));
      }
    }
    return String.join(File.pathSeparator, out);
  }

  static Set<PosixFilePermission> mode(int bits) {
    StringBuilder b = new StringBuilder();
    String rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++) {
      b.append((bits & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
    }
    return PosixFilePermissions.fromString(b.toString());
  }

  /** The setgid bit, which java.nio cannot set: chmod g+s. */
  static void chmodSetgid(Path dir) throws IOException {
    try {
      Process p = new ProcessBuilder("chmod", "g+s", dir.toString()).inheritIO().start();
      assertEquals(0, p.waitFor());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** {@code dir} and its parents traversable by anyone (a temp folder is 0700). */
  static void open(Path dir) throws IOException {
    for (Path p = dir; p != null && p.getNameCount() > 1; p = p.getParent()) {
      Set<PosixFilePermission> perms = new HashSet<>(Files.getPosixFilePermissions(p));
      perms.addAll(Set.of(PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.GROUP_EXECUTE));
      Files.setPosixFilePermissions(p, perms);
    }
  }

  static boolean isRoot() {
    try {
      return "root".equals(Files.getOwner(Files.createTempFile("uid", "")).getName());
    } catch (IOException e) {
      return false;
    }
  }
}
