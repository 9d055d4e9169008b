package dev.trainyard.controller.forge;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Picks the forge for a source repo by the host of its URL, among the configured endpoints; one client
 * per endpoint, built once.
 */
public final class ForgeDirectory {

    /** The forge and the commit's project path for one source repo. */
    public record Route(Forge forge, String project) {
    }

    private final Map<String, Forge> byHost = new TreeMap<>();

    public ForgeDirectory(List<ForgeEndpoint> endpoints, RetryingTransport http) {
        for (ForgeEndpoint e : endpoints) {
            byHost.put(e.host().toLowerCase(Locale.ROOT), e.kind().client(e.api(), e.token(), http));
        }
    }

    /** The route for {@code repoUrl}; empty when the URL does not parse or its host has no endpoint. */
    public Optional<Route> route(String repoUrl) {
        return RepoUrl.parse(repoUrl).flatMap(u -> Optional.ofNullable(byHost.get(u.host()))
                .map(f -> new Route(f, u.project())));
    }
}
