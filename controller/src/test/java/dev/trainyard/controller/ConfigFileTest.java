package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.ForgeKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

    @TempDir
    Path dir;

    Path write(String yaml) throws Exception {
        Path f = dir.resolve("controller.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    @DisplayName("a full config reads forges (token from file or env), durations, target URL and port")
    void full() throws Exception {
        Files.writeString(dir.resolve("gh"), "ghp_secret\n");
        ControllerConfig c = ConfigFile.read(write("""
                forges:
                - host: github.com
                  kind: github
                  api: https://api.github.com
                  tokenFile: %s
                - host: gitlab.example
                  kind: GitLab
                  api: https://gitlab.example/api/v4
                  tokenEnv: GL_TOKEN
                targetUrl: https://g.example/d?run={run}
                stallAfter: 5m
                resync: 30s
                requestTimeout: 500ms
                requeueAfter: 1h
                port: 9090
                """.formatted(dir.resolve("gh"))), Map.of("GL_TOKEN", "glpat"));
        assertEquals(2, c.forges().size());
        assertEquals(ForgeKind.GITHUB, c.forges().get(0).kind());
        assertEquals(ForgeKind.GITLAB, c.forges().get(1).kind());
        assertEquals("Token[***]", c.forges().get(0).token().toString());
        assertEquals(Duration.ofMinutes(5), c.stallAfter());
        assertEquals(Duration.ofSeconds(30), c.resync());
        assertEquals(Duration.ofMillis(500), c.requestTimeout());
        assertEquals(Duration.ofHours(1), c.requeueAfter());
        assertEquals(9090, c.port());
        assertNull(c.election());
        assertEquals(7070, c.withPort(7070).port());
    }

    @Test
    @DisplayName("an empty file gives the defaults: no forges, 10m stall, 60s resync, 10s timeout, port 8080")
    void defaults() throws Exception {
        ControllerConfig c = ConfigFile.read(write("{}\n"), Map.of());
        assertTrue(c.forges().isEmpty());
        assertEquals(Duration.ofMinutes(10), c.stallAfter());
        assertEquals(Duration.ofSeconds(60), c.resync());
        assertEquals(Duration.ofSeconds(10), c.requestTimeout());
        assertEquals(Duration.ofSeconds(30), c.requeueAfter());
        assertEquals(8080, c.port());
    }

    @Test
    @DisplayName("mistakes name the file, the field and what is expected, and never show a token")
    void mistakes() throws Exception {
        assertMessage("forges: [{host: h, api: a, kind: bitbucket, tokenEnv: T}]", Map.of("T", "tok"),
                "forges[0].kind must be github, gitlab or gitea, got 'bitbucket'");
        assertMessage("forges: [{host: h, kind: github, tokenEnv: T}]", Map.of(), "forges[0] needs host and api");
        assertMessage("forges: [{host: h, api: a, kind: github}]", Map.of(), "forges[0] needs tokenFile or tokenEnv");
        assertMessage("forges: [{host: h, api: a, kind: github, tokenEnv: T}]", Map.of(),
                "forges[0].tokenEnv: environment variable T is not set");
        assertMessage("forges: [{host: h, api: a, kind: github, tokenFile: /nonexistent/x}]", Map.of(),
                "forges[0].tokenFile /nonexistent/x cannot be read or is empty");
        assertMessage("forges: [{host: h, api: a, kind: github, token: s3cret}]", Map.of(),
                "unknown field forges[0].token");
        assertMessage("stallAfter: ten minutes", Map.of(), "stallAfter: 'ten minutes' is not a duration");
        assertMessage("colour: red", Map.of(), "unknown field colour");
        assertMessage("targetUrl: https://x/{pod}", Map.of(), "unknown placeholder(s) [pod]");
        assertMessage("forges: [unclosed", Map.of(), "not valid YAML");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(dir.resolve("none"), Map.of()));
        assertTrue(e.getMessage().contains("cannot read"), e.getMessage());
    }

    private void assertMessage(String yaml, Map<String, String> env, String expected) throws Exception {
        Path f = write(yaml);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigFile.read(f, env));
        assertTrue(e.getMessage().startsWith(f.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"));
    }

    @Test
    @DisplayName("durations: ms, s, m, h; anything else is refused")
    void durations() {
        assertEquals(Duration.ofMillis(250), ConfigFile.parseDuration("250ms"));
        assertEquals(Duration.ofSeconds(90), ConfigFile.parseDuration(" 90s "));
        assertEquals(Duration.ofMinutes(10), ConfigFile.parseDuration("10m"));
        assertEquals(Duration.ofHours(2), ConfigFile.parseDuration("2h"));
        assertThrows(IllegalArgumentException.class, () -> ConfigFile.parseDuration("10"));
        assertThrows(IllegalArgumentException.class, () -> ConfigFile.parseDuration("1d"));
    }
}
