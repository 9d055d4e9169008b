package dev.trainyard.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.cluster.KubeCluster;
import dev.trainyard.cluster.KubeClusterExtension;
import dev.trainyard.distribution.Launch.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller image that Jib writes as an OCI tarball ({@code
 * controller/target/trainyard-controller-image.tar}, from {@code mvn package
 * -Dtrainyard.image.tar}, which {@code scripts/test} passes), unpacked with the real {@code tar}
 * and read as a registry would: {@code index.json} → manifest → config, each blob checked against
 * its digest. The OCI image spec (image-layout, manifest, config) defines the files read here.
 *
 * <p>The build uses the stand-in base of {@code scripts/image-base} (no registry is reachable
 * here), so what is checked is what Jib adds: user, entrypoint, environment, port, labels, the
 * fixed creation time and the application layers; then {@code runc} runs the unpacked layers as the
 * image config says ({@link RuncBundle}, the host's Java standing in for the base's) against the
 * test cluster until {@code /readyz} answers.
 */
class ControllerImageIT {
  static final Path TARBALL =
      Path.of(System.getProperty("trainyard.image.tarball", "missing-image-tarball"));
  static final String REVISION = System.getProperty("trainyard.revision", "unknown");
  static final String VERSION = System.getProperty("trainyard.version", "missing");
  static final String CREATED = System.getProperty("trainyard.output.timestamp", "missing");
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path layout;
  static JsonNode manifest;
  static JsonNode config;

  @BeforeAll
  static void unpack() throws IOException {
    assertTrue(
        Files.isRegularFile(TARBALL),
        TARBALL
            + " is missing: build with -Dtrainyard.image.tar"
            + " -Dtrainyard.image.base=tar://$(scripts/image-base) (scripts/test does)");
    Result tar =
        Launch.run(
            layout,
            Map.of("PATH", System.getenv("PATH")),
            List.of("tar", "-xf", TARBALL.toString()));
    assertEquals(0, tar.exit(), tar.toString());
    JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
    assertEquals(1, index.path("manifests").size(), index.toString());
    manifest = blob(index.at("/manifests/0"));
    config = blob(manifest.path("config"));
  }

  @Test
  @DisplayName("the tarball is an OCI image layout: oci-layout, an index, an OCI manifest")
  void ociLayout() throws IOException {
    assertEquals(
        "1.0.0",
        JSON.readTree(layout.resolve("oci-layout").toFile()).path("imageLayoutVersion").asText());
    assertEquals("application/vnd.oci.image.manifest.v1+json", manifest.path("mediaType").asText());
    assertEquals(
        "application/vnd.oci.image.config.v1+json", manifest.at("/config/mediaType").asText());
  }

  @Test
  @DisplayName("the controller runs as the non-root uid and gid 65532 the Deployment expects")
  void nonRoot() {
    assertEquals("65532:65532", config.at("/config/User").asText());
  }

  @Test
  @DisplayName("the entrypoint starts ControllerMain with the classpath Jib wrote, no shell")
  void entrypoint() {
    assertEquals(
        List.of(
            "java", "-cp", "@/app/jib-classpath-file", "dev.trainyard.controller.ControllerMain"),
        texts(config.at("/config/Entrypoint")));
    assertTrue(config.at("/config/Cmd").isMissingNode() || config.at("/config/Cmd").isNull());
  }

  @Test
  @DisplayName("the environment sets the JVM's memory share and serial GC; the port is 8080/tcp")
  void environmentAndPort() {
    assertTrue(
        texts(config.at("/config/Env"))
            .contains("JAVA_TOOL_OPTIONS=-XX:MaxRAMPercentage=75 -XX:+UseSerialGC"),
        config.at("/config/Env").toString());
    assertEquals(List.of("8080/tcp"), names(config.at("/config/ExposedPorts")));
  }

  @Test
  @DisplayName("the OCI labels name the source commit, the version, the title and the licence")
  void labels() {
    JsonNode labels = config.at("/config/Labels");
    assertTrue(REVISION.matches("[0-9a-f]{40}"), "the build passed the commit: " + REVISION);
    assertEquals(REVISION, labels.path("org.opencontainers.image.revision").asText());
    assertEquals(VERSION, labels.path("org.opencontainers.image.version").asText());
    assertEquals("trainyard-controller", labels.path("org.opencontainers.image.title").asText());
    assertEquals("Apache-2.0", labels.path("org.opencontainers.image.licenses").asText());
  }

  @Test
  @DisplayName(
      "reproducible: the image and each history entry are dated by the build's fixed timestamp, never the clock")
  void fixedCreationTime() {
    assertEquals(CREATED, config.path("created").asText());
    for (JsonNode entry : config.path("history")) {
      assertEquals(CREATED, entry.path("created").asText(), entry.toString());
    }
  }

  @Test
  @DisplayName(
      "Jib's layers hold the controller's classes and every runtime jar under /app, files dated 1970-01-01 00:00:01")
  void applicationLayers() throws IOException {
    List<String> entries = new ArrayList<>();
    for (JsonNode layer : manifest.path("layers")) {
      Path file = verified(layer);
      Result list =
          Launch.run(
              layout,
              Map.of("PATH", System.getenv("PATH"), "TZ", "UTC"),
              List.of("tar", "-tvzf", file.toString(), "--full-time"));
      assertEquals(0, list.exit(), list.toString());
      for (String line : list.out().split("\n")) {
        String entry = line.substring(line.lastIndexOf(' ') + 1);
        if (line.startsWith("-") && entry.startsWith("app/")) {
          assertTrue(line.contains(" 1970-01-01 00:00:01 "), line);
          entries.add(entry);
        }
      }
    }
    assertTrue(entries.contains("app/classes/dev/trainyard/controller/ControllerMain.class"));
    assertTrue(entries.contains("app/libs/trainyard-compiler-" + VERSION + ".jar"));
    assertTrue(entries.contains("app/libs/trainyard-publish-" + VERSION + ".jar"));
    assertTrue(entries.contains("app/jib-classpath-file"));
    assertTrue(
        entries.stream().anyMatch(e -> e.matches("app/libs/kubernetes-client-[0-9.]+\\.jar")),
        entries.toString());
  }

  @Test
  @ExtendWith(KubeClusterExtension.class)
  @DisplayName(
      "runc runs the image as its config says (uid 65532, entrypoint, env, read-only root) against the test cluster, and /readyz answers 200")
  void runsUnderRunc(KubeCluster cluster) throws Exception {
    Path runc =
        Stream.of("/usr/sbin/runc", "/usr/bin/runc")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    assumeTrue(runc != null, "NOT RUN: no runc (apt-get install runc; .ci/run installs it)");
    Path bundle = Files.createDirectories(layout.resolve("bundle"));
    Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
    for (JsonNode layer : manifest.path("layers")) {
      Result untar =
          Launch.run(
              layout,
              Map.of("PATH", System.getenv("PATH")),
              List.of("tar", "-xf", verified(layer).toString(), "-C", rootfs.toString()));
      assertEquals(0, untar.exit(), untar.toString());
    }
    Path etc =
        RuncBundle.controllerFiles(
            layout.resolve("etc-trainyard"),
            cluster.kubeconfig(),
            Path.of(System.getProperty("trainyard.repo.root", "..")));
    Result spec =
        Launch.run(bundle, Map.of("PATH", System.getenv("PATH")), List.of(runc.toString(), "spec"));
    assertEquals(0, spec.exit(), spec.toString());
    RuncBundle.configure(bundle.resolve("config.json"), config.path("config"), etc);
    String id = "trainyard-image-it-" + ProcessHandle.current().pid();
    Path log = layout.resolve("runc.log");
    Process container =
        new ProcessBuilder(runc.toString(), "run", "--bundle", bundle.toString(), id)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      int port = RuncBundle.servingPort(container, log);
      assertEquals(200, RuncBundle.readyz(port, container), Files.readString(log));
      String status =
          Files.readString(
              Path.of("/proc", String.valueOf(RuncBundle.javaPid(runc, id)), "status"));
      assertTrue(status.contains("\nUid:\t65532\t65532\t65532\t65532\n"), status);
    } finally {
      Launch.run(
          layout,
          Map.of("PATH", System.getenv("PATH")),
          List.of(runc.toString(), "kill", id, "TERM"));
      if (!container.waitFor(20, TimeUnit.SECONDS)) {
        Launch.run(
            layout,
            Map.of("PATH", System.getenv("PATH")),
            List.of(runc.toString(), "kill", id, "KILL"));
        container.waitFor(10, TimeUnit.SECONDS);
      }
      Launch.run(
          layout,
          Map.of("PATH", System.getenv("PATH")),
          List.of(runc.toString(), "delete", "--force", id));
    }
    assertFalse(Files.readString(log).contains("Exception"), Files.readString(log));
  }

  /** The blob a descriptor names, parsed as JSON, after its size and digest are checked. */
  private static JsonNode blob(JsonNode descriptor) throws IOException {
    return JSON.readTree(verified(descriptor).toFile());
  }

  private static Path verified(JsonNode descriptor) throws IOException {
    String digest = descriptor.path("digest").asText();
    assertTrue(digest.startsWith("sha256:"), descriptor.toString());
    Path file = layout.resolve("blobs/sha256").resolve(digest.substring("sha256:".length()));
    assertEquals(descriptor.path("size").asLong(), Files.size(file), digest);
    assertEquals(digest, "sha256:" + sha256(file));
    return file;
  }

  private static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
        md.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is in every JDK", e);
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
