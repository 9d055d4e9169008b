package dev.trainyard.distribution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An OCI runtime bundle for the controller image, as a container runtime derives it from the image
 * config (OCI image spec, "conversion to OCI runtime configuration": Entrypoint then the arguments,
 * Env, User as uid:gid, WorkingDir) on top of {@code runc spec}'s defaults, with a read-only root
 * file system and a tmpfs at /tmp as the Deployment has.
 *
 * <p>The image was built on the stand-in base of {@code scripts/image-base}, which holds no Java:
 * the host's Java (its {@code /usr}, {@code /lib*} and the {@code /etc} entries the JDK links to)
 * is bind-mounted read-only in its place. The container shares the host's network namespace, so the
 * controller reaches the test API server on 127.0.0.1.
 */
final class RuncBundle {
  static final Pattern SERVING = Pattern.compile("serving on port (\\d+)");
  static final Duration READY = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();

  private RuncBundle() {}

  /**
   * A folder for /etc/trainyard: controller.yaml (relative paths), deploy's platform.yaml, a token
   * file, and a kubeconfig with the test cluster's certificates embedded (the originals are
   * root-only files, and the controller runs as uid 65532). Every file world-readable.
   */
  static Path controllerFiles(Path dir, Path kubeconfig, Path repo) throws IOException {
    Files.createDirectories(dir.resolve("tokens/trainyard-forge-tokens"));
    Files.writeString(
        dir.resolve("controller.yaml"), "platform: platform.yaml\ntokens: tokens\nport: 8080\n");
    Files.copy(repo.resolve("controller/deploy/platform.yaml"), dir.resolve("platform.yaml"));
    Files.writeString(
        dir.resolve("tokens/trainyard-forge-tokens/github-token"), "ghp_not-a-real-token\n");
    ObjectNode config = (ObjectNode) new YAMLMapper().readTree(kubeconfig.toFile());
    embed(config.at("/clusters/0/cluster"), "certificate-authority");
    embed(config.at("/users/0/user"), "client-certificate");
    embed(config.at("/users/0/user"), "client-key");
    Files.writeString(dir.resolve("kubeconfig"), JSON.writeValueAsString(config));
    return dir;
  }

  private static void embed(JsonNode section, String field) throws IOException {
    ObjectNode node = (ObjectNode) section;
    byte[] data = Files.readAllBytes(Path.of(node.path(field).asText()));
    node.remove(field);
    node.put(field + "-data", Base64.getEncoder().encodeToString(data));
  }

  /** Rewrites {@code runc spec}'s config.json for the image config {@code image} ("config"). */
  static void configure(Path configJson, JsonNode image, Path etc) throws IOException {
    ObjectNode spec = (ObjectNode) JSON.readTree(configJson.toFile());
    ObjectNode process = (ObjectNode) spec.path("process");
    process.put("terminal", false);
    ArrayNode args = process.putArray("args");
    image.path("Entrypoint").forEach(args::add);
    for (String arg :
        List.of(
            "--config=/etc/trainyard/controller.yaml",
            "--kubeconfig=/etc/trainyard/kubeconfig",
            "--no-leader-election",
            "--bind=127.0.0.1",
            "--port=0")) {
      args.add(arg);
    }
    ArrayNode env = process.putArray("env");
    image.path("Env").forEach(env::add);
    String[] user = image.path("User").asText().split(":");
    ObjectNode u = process.putObject("user");
    u.put("uid", Integer.parseInt(user[0]));
    u.put("gid", Integer.parseInt(user[1]));
    String workingDir = image.path("WorkingDir").asText("");
    process.put("cwd", workingDir.isEmpty() ? "/" : workingDir);
    ObjectNode root = spec.putObject("root");
    root.put("path", "rootfs");
    root.put("readonly", true);
    ArrayNode mounts = (ArrayNode) spec.path("mounts");
    for (String host :
        List.of(
            "/usr",
            "/lib",
            "/lib64",
            "/etc/alternatives",
            "/etc/java-17-openjdk",
            "/etc/ld.so.cache")) {
      if (Files.exists(Path.of(host))) {
        bind(mounts, host, host);
      }
    }
    bind(mounts, etc.toString(), "/etc/trainyard");
    ObjectNode tmp = mounts.addObject();
    tmp.put("destination", "/tmp");
    tmp.put("type", "tmpfs");
    tmp.put("source", "tmpfs");
    tmp.putArray("options").add("nosuid").add("nodev").add("mode=1777");
    ObjectNode linux = (ObjectNode) spec.path("linux");
    ArrayNode namespaces = linux.putArray("namespaces");
    for (JsonNode ns : JSON.readTree(configJson.toFile()).at("/linux/namespaces")) {
      if (!"network".equals(ns.path("type").asText())) {
        namespaces.add(ns);
      }
    }
    Files.writeString(configJson, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(spec));
  }

  private static void bind(ArrayNode mounts, String source, String destination) {
    ObjectNode m = mounts.addObject();
    m.put("destination", destination);
    m.put("type", "bind");
    m.put("source", source);
    m.putArray("options").add("rbind").add("ro");
  }

  /** The port of the controller's "serving on port N" line, waiting at most {@link #READY}. */
  static int servingPort(Process container, Path log) throws Exception {
    long end = System.nanoTime() + READY.toNanos();
    while (System.nanoTime() < end && container.isAlive()) {
      Matcher m = SERVING.matcher(Files.readString(log, StandardCharsets.UTF_8));
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      Thread.sleep(200);
    }
    throw new AssertionError("never served: " + Files.readString(log, StandardCharsets.UTF_8));
  }

  /** /readyz's status once it is 200, or the last one after {@link #READY}. */
  static int readyz(int port, Process container) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long end = System.nanoTime() + READY.toNanos();
    int status = -1;
    while (System.nanoTime() < end && container.isAlive()) {
      try {
        status = http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status == 200) {
          return status;
        }
      } catch (IOException e) {
        status = -1;
      }
      Thread.sleep(250);
    }
    return status;
  }

  /** The host pid of the container's first process (runc state's "pid"). */
  static long javaPid(Path runc, String id) throws IOException {
    Launch.Result state =
        Launch.run(
            Path.of("/"),
            Map.of("PATH", System.getenv("PATH")),
            List.of(runc.toString(), "state", id));
    if (state.exit() != 0) {
      throw new IOException("runc state " + id + ": " + state);
    }
    return JSON.readTree(state.out()).path("pid").asLong();
  }
}
