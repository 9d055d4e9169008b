package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Objects;

/**
 * One forge the controller may post to: the git host as it appears in source repo URLs (e.g.
 * {@code github.com}), its kind, its API root (e.g. {@code https://api.github.com},
 * {@code https://gitlab.com/api/v4}, {@code https://codeberg.org/api/v1}) and the token.
 *
 * <pre>
 * forges:
 * - host: github.com
 *   kind: github
 *   api: https://api.github.com
 *   tokenFile: /var/run/secrets/trainyard/forges/github-token
 * </pre>
 */
public record ForgeEndpoint(String host, ForgeKind kind, URI api, Token token) {

    public ForgeEndpoint {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(token, "token");
    }
}
