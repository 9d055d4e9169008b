package dev.trainyard.controller.forge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the forge for a source repo among the configured endpoints (platform.yaml {@code
 * status.forges}): the endpoint with the longest source prefix that the repo's {@code host/project}
 * lies under, so {@code github.com/acme} refines {@code github.com}. One client per endpoint, built
 * once. A repo the chosen forge cannot hold (a {@code github.com/acme/llm/tree/main} URL: GitHub
 * and Gitea know only {@code owner/repo}) has no route, and {@link #unrouted} says why, so the
 * reconciler logs it once instead of failing at each try.
 */
public final class ForgeDirectory {

  /** The forge and the commit's project path for one source repo. */
  public record Route(Forge forge, String project) {}

  private record Entry(ForgeEndpoint endpoint, Forge forge) {}

  private final List<Entry> entries = new ArrayList<>();

  public ForgeDirectory(List<ForgeEndpoint> endpoints, RetryingTransport http) {
    for (ForgeEndpoint e : endpoints) {
      entries.add(new Entry(e, e.client(http)));
    }
    entries.sort(Comparator.comparingInt((Entry e) -> e.endpoint().prefix().length()).reversed());
  }

  /** The route for {@code repoUrl}; empty when the URL does not parse or no endpoint serves it. */
  public Optional<Route> route(String repoUrl) {
    return RepoUrl.parse(repoUrl)
        .flatMap(
            u ->
                endpoint(u)
                    .filter(e -> e.forge().serves(u.project()))
                    .map(e -> new Route(e.forge(), u.project())));
  }

  /** Why {@code repoUrl} has no route, one clause for a log line; "" when it has one. */
  public String unrouted(String repoUrl) {
    Optional<RepoUrl> u = RepoUrl.parse(repoUrl);
    if (u.isEmpty()) {
      return "source repo "
          + repoUrl
          + " is not a git remote URL (https://host/owner/repo, ssh:// or"
          + " git@host:owner/repo)";
    }
    Optional<Entry> e = endpoint(u.get());
    if (e.isEmpty()) {
      return "no forge in platform.yaml status.forges matches source repo " + repoUrl;
    }
    if (!e.get().forge().serves(u.get().project())) {
      return "source repo "
          + repoUrl
          + " is under "
          + e.get().endpoint().prefix()
          + " ("
          + e.get().forge().kind()
          + "), whose repos are owner/repo, but its path is "
          + u.get().project()
          + " (the JobSet's trainyard.dev/source-repo annotation)";
    }
    return "";
  }

  private Optional<Entry> endpoint(RepoUrl u) {
    return entries.stream()
        .filter(e -> e.endpoint().serves(u.host() + "/" + u.project()))
        .findFirst();
  }
}
