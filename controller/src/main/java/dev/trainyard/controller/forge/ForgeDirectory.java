package dev.trainyard.controller.forge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the forge for a source repo among the configured endpoints (platform.yaml {@code
 * status.forges}): the endpoint with the longest source prefix that the repo's {@code host/project}
 * lies under, so {@code github.com/acme} refines {@code github.com}. One client per endpoint, built
 * once.
 */
public final class ForgeDirectory {

  /** The forge and the commit's project path for one source repo. */
  public record Route(Forge forge, String project) {}

  private record Entry(ForgeEndpoint endpoint, Forge forge) {}

  private final List<Entry> entries = new ArrayList<>();

  public ForgeDirectory(List<ForgeEndpoint> endpoints, RetryingTransport http) {
    for (ForgeEndpoint e : endpoints) {
      entries.add(new Entry(e, e.kind().client(e.api(), e.token(), http)));
    }
    entries.sort(Comparator.comparingInt((Entry e) -> e.endpoint().prefix().length()).reversed());
  }

  /** The route for {@code repoUrl}; empty when the URL does not parse or no endpoint serves it. */
  public Optional<Route> route(String repoUrl) {
    return RepoUrl.parse(repoUrl)
        .flatMap(
            u ->
                entries.stream()
                    .filter(e -> e.endpoint().serves(u.host() + "/" + u.project()))
                    .findFirst()
                    .map(e -> new Route(e.forge(), u.project())));
  }
}
