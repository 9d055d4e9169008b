package dev.trainyard.controller;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeException;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.GitHubApp;
import dev.trainyard.controller.forge.Token;
import java.io.IOException;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The platform team's {@code platform.yaml} as the controller reads it: loaded, schema-checked and
 * bound by the compiler's {@link PlatformLoader} (the same file and rules {@code trainyard submit}
 * uses), mounted into the pod from a ConfigMap. Its {@code status.forges} become {@link
 * ForgeEndpoint}s whose tokens are read from {@code <tokenDir>/<secret>/<key>}, where the
 * Deployment mounts each token Secret.
 */
public final class PlatformFile {

  /** The parts of platform.yaml the controller uses. */
  public record Settings(Platform platform, List<ForgeEndpoint> forges, TargetUrl targetUrl) {
    public Settings {
      forges = List.copyOf(forges);
    }
  }

  private PlatformFile() {}

  /**
   * @param file platform.yaml
   * @param tokenDir folder holding one sub-folder per token Secret
   * @throws ConfigException with the compiler's diagnostics ({@code file:line:col: error[E304]:
   *     ...} and hints), or naming a token file that cannot be read (never its content)
   */
  public static Settings read(Path file, Path tokenDir) throws ConfigException {
    Platform platform = load(file);
    List<ForgeEndpoint> forges = new ArrayList<>();
    List<Platform.ForgeRoute> routes = platform.status().forges();
    for (int i = 0; i < routes.size(); i++) {
      forges.add(endpoint(file, i, routes.get(i), tokenDir));
    }
    return new Settings(platform, forges, new TargetUrl(platform.status().targetUrl()));
  }

  /**
   * {@code file} loaded, schema-checked and bound, without reading any token (for {@code trainyard
   * status --platform}, which needs only {@code status.stallAfter}).
   *
   * @throws ConfigException with the compiler's diagnostics ({@code file:line:col: error[E304]:
   *     ...} and hints)
   */
  public static Platform load(Path file) throws ConfigException {
    StageResult<Platform> loaded =
        PlatformLoader.standard().load(Optional.of(file), file.toString());
    if (loaded.failed()) {
      throw new ConfigException(render(loaded.diagnostics()));
    }
    return loaded.value().orElseThrow();
  }

  private static ForgeEndpoint endpoint(Path file, int i, Platform.ForgeRoute r, Path tokenDir)
      throws ConfigException {
    Path tokenFile = tokenDir.resolve(r.tokenSecret()).resolve(r.tokenKey());
    URI api;
    try {
      api = URI.create(r.api());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          file + ": status.forges[" + i + "].api: '" + r.api() + "' is not a URL");
    }
    String insecure = ForgeEndpoint.insecure(api);
    if (!insecure.isEmpty()) {
      throw new ConfigException(file + ": status.forges[" + i + "].api: " + insecure);
    }
    ForgeKind kind = ForgeKind.valueOf(r.kind().toUpperCase(Locale.ROOT));
    if (r.checks()) {
      if (!Files.isReadable(tokenFile)) {
        throw new ConfigException(
            file
                + ": status.forges["
                + i
                + "].app.privateKey: Secret "
                + r.tokenSecret()
                + " key "
                + r.tokenKey()
                + " is not readable at "
                + tokenFile
                + "\n  hint: mount the Secret "
                + r.tokenSecret()
                + " at "
                + tokenDir.resolve(r.tokenSecret())
                + " with securityContext.fsGroup and defaultMode 0440, as for a token");
      }
      try {
        return new ForgeEndpoint(r.source(), kind, api, null, new GitHubApp(r.appId(), tokenFile));
      } catch (ForgeException e) {
        throw new ConfigException(
            file + ": status.forges[" + i + "].app.privateKey: " + e.getMessage());
      }
    }
    try {
      return new ForgeEndpoint(r.source(), kind, api, Token.fromFile(tokenFile));
    } catch (AccessDeniedException e) {
      // The file is there: the mount is right, its owner and mode are not (the kubelet writes
      // Secret files as root).
      throw new ConfigException(
          tokenPlace(file, i, r)
              + " at "
              + tokenFile
              + " exists but this process may not read it"
              + "\n  hint: the kubelet writes Secret files owned by root; give the pod securityContext.fsGroup (the"
              + " Deployment's 65532) and the volume a defaultMode its group can read (0440)");
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException(
          tokenPlace(file, i, r)
              + " is not readable at "
              + tokenFile
              + " (or is empty)"
              + "\n  hint: mount the Secret "
              + r.tokenSecret()
              + " at "
              + tokenDir.resolve(r.tokenSecret()));
    }
  }

  /** {@code file: status.forges[i].token: Secret NAME key KEY}, where a token problem is. */
  private static String tokenPlace(Path file, int i, Platform.ForgeRoute r) {
    return file
        + ": status.forges["
        + i
        + "].token: Secret "
        + r.tokenSecret()
        + " key "
        + r.tokenKey();
  }

  /**
   * Diagnostics as the CLI prints them: {@code file:line:col: error[CODE]: message}, then the hint.
   */
  static String render(List<Diagnostic> diagnostics) {
    return String.join("\n", DiagnosticPrinter.lines(diagnostics));
  }
}
