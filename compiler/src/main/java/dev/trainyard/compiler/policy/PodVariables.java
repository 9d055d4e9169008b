package dev.trainyard.compiler.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which variables a shell running {@code run} can expand: what Trainyard sets ({@link TrainyardEnv}), the
 * user's {@code env} and {@code secrets}, the runtime template's own env, what the command assigns itself
 * ({@code export N=…}, {@code N=… cmd}, {@code for N in}), and what every container has (Kubernetes sets
 * {@code HOSTNAME} and the {@code KUBERNETES_*} service names; images set {@code PATH}, {@code HOME}, …).
 */
final class PodVariables {
  private static final Set<String> CONTAINER = Set.of("PATH", "HOME", "PWD", "OLDPWD", "USER", "SHELL", "HOSTNAME",
      "LD_LIBRARY_PATH", "PYTHONPATH", "CUDA_HOME", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
      "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "RANDOM", "SECONDS", "LINENO", "BASH_VERSION");
  private static final Pattern ASSIGNED = Pattern.compile("(?:^|[\\s;&|(])(?:export\\s+|local\\s+|declare\\s+(?:-\\w+\\s+)?)?([A-Za-z_][A-Za-z0-9_]*)=|\\bfor\\s+([A-Za-z_][A-Za-z0-9_]*)\\s+in\\b|\\bread\\s+(?:-\\w+\\s+)*([A-Za-z_][A-Za-z0-9_]*)");

  private PodVariables() {}

  static boolean defined(RunCheck c, String name) {
    return CONTAINER.contains(name) || TrainyardEnv.seenByRun(c.job()).contains(name)
        || c.job().command().env().containsKey(name)
        || c.job().secrets().stream().anyMatch(s -> s.env().filter(name::equals).isPresent())
        || assigned(c.run().text()).contains(name)
        || templateEnv(c.job().runtime().skeleton()).contains(name);
  }

  private static Set<String> assigned(String run) {
    Set<String> names = new TreeSet<>();
    Matcher m = ASSIGNED.matcher(run);
    while (m.find()) {
      for (int g = 1; g <= 3; g++) {
        if (m.group(g) != null) {
          names.add(m.group(g));
        }
      }
    }
    return names;
  }

  /** The names of every {@code env} entry in the runtime's JobSet skeleton. */
  private static Set<String> templateEnv(JsonNode skeleton) {
    Set<String> names = new TreeSet<>();
    for (JsonNode env : skeleton.findValues("env")) {
      env.forEach(e -> names.add(e.path("name").asText()));
    }
    return names;
  }
}
