package dev.trainyard.controller;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.Token;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the controller's YAML configuration (Jackson YAML; the only class importing it). Durations are
 * written {@code 90s}, {@code 10m} or {@code 1h}. Tokens come from a mounted Secret file or an
 * environment variable, never from the file itself.
 *
 * <pre>
 * forges:
 * - host: github.com                # host of trainyard.dev/source-repo URLs
 *   kind: github                    # github | gitlab | gitea
 *   api: https://api.github.com
 *   tokenFile: /var/run/secrets/trainyard/forges/github-token   # or tokenEnv: GITHUB_TOKEN
 * targetUrl: https://grafana.example/d/trainyard?var-namespace={namespace}&amp;var-run={run}
 * stallAfter: 10m                   # admitted but not started after this: reported
 * resync: 60s
 * requestTimeout: 10s
 * requeueAfter: 30s
 * port: 8080
 * </pre>
 */
public final class ConfigFile {

    private static final Set<String> TOP = Set.of("forges", "targetUrl", "stallAfter", "resync", "requestTimeout",
            "requeueAfter", "port");
    private static final Set<String> FORGE = Set.of("host", "kind", "api", "tokenFile", "tokenEnv");
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

    private ConfigFile() {
    }

    /** The configuration in {@code file}, tokens resolved against {@code env}. */
    public static ControllerConfig read(Path file, Map<String, String> env) throws ConfigException {
        Map<String, Object> root;
        try {
            root = Snapshots.map(new ObjectMapper(new YAMLFactory()).readValue(Files.readString(file), Object.class));
        } catch (JsonProcessingException e) {
            throw new ConfigException(file + ": not valid YAML (line " + e.getLocation().getLineNr() + ")");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read (" + e.getClass().getSimpleName() + ")");
        }
        unknown(file, "", root, TOP);
        List<ForgeEndpoint> forges = new ArrayList<>();
        List<?> list = Snapshots.list(root.get("forges"));
        for (int i = 0; i < list.size(); i++) {
            forges.add(forge(file, "forges[" + i + "]", Snapshots.map(list.get(i)), env));
        }
        try {
            return new ControllerConfig(forges, new TargetUrl(string(root, "targetUrl", "")),
                    duration(file, root, "stallAfter", "10m"), duration(file, root, "resync", "60s"),
                    duration(file, root, "requestTimeout", "10s"), RetryPolicy.standard(),
                    duration(file, root, "requeueAfter", "30s"), Snapshots.integer(root.get("port"), 8080), null);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + e.getMessage());
        }
    }

    private static ForgeEndpoint forge(Path file, String at, Map<String, Object> f, Map<String, String> env)
            throws ConfigException {
        unknown(file, at + ".", f, FORGE);
        String host = string(f, "host", "");
        String kind = string(f, "kind", "");
        String api = string(f, "api", "");
        if (host.isEmpty() || api.isEmpty()) {
            throw new ConfigException(file + ": " + at + " needs host and api");
        }
        ForgeKind k;
        try {
            k = ForgeKind.valueOf(kind.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + at + ".kind must be github, gitlab or gitea, got '" + kind + "'");
        }
        return new ForgeEndpoint(host, k, URI.create(api), token(file, at, f, env));
    }

    private static Token token(Path file, String at, Map<String, Object> f, Map<String, String> env)
            throws ConfigException {
        String tokenFile = string(f, "tokenFile", "");
        String tokenEnv = string(f, "tokenEnv", "");
        try {
            if (!tokenFile.isEmpty()) {
                return Token.fromFile(Path.of(tokenFile));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(file + ": " + at + ".tokenFile " + tokenFile + " cannot be read or is empty");
        }
        if (tokenEnv.isEmpty()) {
            throw new ConfigException(file + ": " + at + " needs tokenFile or tokenEnv");
        }
        return Token.fromEnv(env, tokenEnv).orElseThrow(() -> new ConfigException(file + ": " + at
                + ".tokenEnv: environment variable " + tokenEnv + " is not set"));
    }

    /** "90s", "10m", "1h" or "500ms"; IllegalArgumentException otherwise. */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration like 90s, 10m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    private static Duration duration(Path file, Map<String, Object> root, String key, String fallback)
            throws ConfigException {
        try {
            return parseDuration(string(root, key, fallback));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file + ": " + key + ": " + e.getMessage());
        }
    }

    private static void unknown(Path file, String at, Map<String, Object> m, Set<String> known)
            throws ConfigException {
        for (String k : new java.util.TreeSet<>(m.keySet())) {
            if (!known.contains(k)) {
                throw new ConfigException(file + ": unknown field " + at + k + "; known: " + new java.util.TreeSet<>(known));
            }
        }
    }

    private static String string(Map<String, Object> m, String key, String fallback) {
        Object v = m.get(key);
        return v == null ? fallback : v.toString();
    }
}
