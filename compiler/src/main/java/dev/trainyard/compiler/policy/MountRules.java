package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolveStage;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.source.SourceMap;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Mount paths of {@code volumes} and {@code secrets}: never on a path Trainyard mounts itself (the
 * code at {@code /workspace}, {@code /dev/shm}, the writable home or, in an image that owns its
 * home, the home itself and its {@code .local} and {@code .cache}, and for MPI {@code /etc/mpi} and
 * the SSH folder), never twice, never inside each other, never at {@code /} or on a system folder
 * of the image ({@code /etc}, {@code /usr}, {@code /bin}, {@code /lib}, … and anything inside
 * {@code /proc}, {@code /sys}, {@code /dev}). The API server would reject the pod only when the Job
 * creates it, after queueing; here it is caught at the user's line.
 */
final class MountRules {
  private static final Set<String> SYSTEM =
      Set.of(
          "/bin",
          "/boot",
          "/dev",
          "/etc",
          "/lib",
          "/lib32",
          "/lib64",
          "/libx32",
          "/opt",
          "/proc",
          "/run",
          "/sbin",
          "/sys",
          "/usr",
          "/var",
          "/usr/bin",
          "/usr/lib",
          "/usr/local",
          "/usr/local/bin",
          "/usr/local/lib",
          "/usr/sbin",
          "/usr/share");

  private MountRules() {}

  /**
   * Paths no mount may overlap (path → what is there), and the home folder an image owns, on which,
   * and above which, no mount may go, though its ordinary subfolders may hold one.
   */
  private record Reserved(Map<String, String> trees, Optional<String> ownedHome) {}

  static List<Diagnostic> check(ResolvedJob job) {
    Reserved reserved = reserved(job);
    List<Diagnostic> out = new ArrayList<>();
    SourceMap map = job.spec().document().map();
    for (int i = 0; i < job.volumes().size(); i++) {
      claim(
          out,
          reserved,
          map,
          "/volumes/" + i + "/path",
          job.volumes().get(i).path(),
          "volume `" + job.volumes().get(i).claim() + "`");
    }
    for (int i = 0; i < job.secrets().size(); i++) {
      int index = i;
      job.secrets()
          .get(i)
          .path()
          .ifPresent(
              p ->
                  claim(
                      out,
                      reserved,
                      map,
                      "/secrets/" + index + "/path",
                      p,
                      "secret `" + job.secrets().get(index).name() + "`"));
    }
    job.checkpoint()
        .ifPresent(
            c ->
                claim(
                    out,
                    reserved,
                    map,
                    job.spec().checkpoint().orElseThrow().path().isPresent()
                        ? "/checkpoint/path"
                        : "/checkpoint",
                    c.path(),
                    "checkpoint volume `checkpoints`"));
    return out;
  }

  /**
   * What Trainyard mounts, and what an image that owns its HOME keeps there ({@code
   * imageOwnsHome}): its {@code pip install --user} packages in {@code HOME/.local}
   * (kubeflow/trainer's deepspeed and mlx Dockerfiles), and Trainyard's scratch emptyDir at {@code
   * HOME/.cache}. A volume at {@code HOME/data} hides nothing, so it is fine; a volume at HOME, or
   * above it, would hide all of it.
   */
  private static Reserved reserved(ResolvedJob job) {
    Map<String, String> taken = new HashMap<>();
    String home = job.runtime().user().home();
    taken.put(ResolveStage.WORKSPACE, "the source code");
    taken.put("/dev/shm", "the shared-memory volume");
    boolean owned = job.runtime().user().imageOwnsHome();
    if (owned) {
      taken.put(
          home + "/.local", "the packages the image installed in its home folder (pip --user)");
      taken.put(home + "/.cache", "Trainyard's scratch folder in the home folder");
    } else {
      taken.put(home, "the writable home folder");
    }
    if (job.runtime().framework().usesMpi()) {
      taken.put("/etc/mpi", "the MPI hostfile and scripts");
      taken.put(home + "/.ssh", "the MPI SSH key");
    }
    return new Reserved(
        taken, owned ? Optional.of(Path.of(home).normalize().toString()) : Optional.empty());
  }

  private static void claim(
      List<Diagnostic> out,
      Reserved reserved,
      SourceMap map,
      String pointer,
      String path,
      String what) {
    String normalized = Path.of(path).normalize().toString();
    Optional<String> system = systemFolder(normalized);
    String elsewhere = "/mnt/" + what.replaceAll(".*`(.*)`.*", "$1");
    if (system.isPresent()) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.SYSTEM_PATH,
                  map.at(pointer),
                  pointer,
                  "the "
                      + what
                      + " is mounted at \""
                      + path
                      + "\", "
                      + system.get()
                      + ", so the image's own files there would be hidden"
                      + " and the container would not start")
              .withHint("mount it under a folder of its own, e.g. " + elsewhere));
      return;
    }
    Optional<String> home =
        reserved.ownedHome().filter(h -> normalized.equals(h) || inside(h, normalized));
    if (home.isPresent()) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.RESERVED_PATH,
                  map.at(pointer),
                  pointer,
                  "the "
                      + what
                      + " is mounted at \""
                      + path
                      + "\", which would hide the home folder where the image installed its packages at "
                      + home.get())
              .withHint(
                  "mount it somewhere else, e.g. "
                      + elsewhere
                      + " or "
                      + home.get()
                      + "/"
                      + what.replaceAll(".*`(.*)`.*", "$1")));
      return;
    }
    for (Map.Entry<String, String> t : reserved.trees().entrySet()) {
      if (overlaps(normalized, t.getKey())) {
        out.add(
            Diagnostic.error(
                    DiagnosticCode.RESERVED_PATH,
                    map.at(pointer),
                    pointer,
                    "the "
                        + what
                        + " is mounted at \""
                        + path
                        + "\", which overlaps "
                        + t.getValue()
                        + " at "
                        + t.getKey())
                .withHint("mount it somewhere else, e.g. " + elsewhere));
        return;
      }
    }
    reserved.trees().put(normalized, "the " + what);
  }

  /** {@code /} is above every path, so it overlaps them all. */
  private static boolean overlaps(String a, String b) {
    return a.equals(b) || inside(a, b) || inside(b, a);
  }

  /**
   * Whether normalised {@code child} lies below {@code parent}; "/" is the one parent that ends in
   * a slash.
   */
  private static boolean inside(String child, String parent) {
    return child.startsWith(parent.endsWith("/") ? parent : parent + "/");
  }

  /**
   * Why {@code path} may not be a mount point: it is {@code /} or a folder of the image's system
   * (the FHS top-level folders where images install software), or inside a kernel file system
   * ({@code /proc}, {@code /sys}, {@code /dev}). A folder below {@code /etc} or {@code /usr} is
   * fine ({@code /etc/secrets}).
   */
  static Optional<String> systemFolder(String path) {
    if (path.equals("/")) {
      return Optional.of("the root of the file system");
    }
    if (SYSTEM.contains(path)) {
      return Optional.of("a system folder of the image");
    }
    for (String kernel : List.of("/proc", "/sys", "/dev")) {
      if (path.startsWith(kernel + "/") && !path.equals("/dev/shm")) {
        return Optional.of("inside " + kernel + ", a kernel file system");
      }
    }
    return Optional.empty();
  }
}
