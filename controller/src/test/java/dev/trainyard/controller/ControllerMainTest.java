package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The controller's command line: overrides of the file, the Lease timings, and the exit code of a bad config. */
class ControllerMainTest {

    @TempDir
    Path dir;

    ControllerConfig config() throws Exception {
        Files.writeString(dir.resolve("platform.yaml"), ConfigFileTest.PLATFORM);
        Path f = dir.resolve("controller.yaml");
        Files.writeString(f, "platform: " + dir.resolve("platform.yaml") + "\nport: 8080\n");
        return ConfigFile.read(f);
    }

    @Test
    @DisplayName("--port overrides the file; the Lease is named, owned by --identity, 15 s by default: renew 10 s, retry 2.243 s")
    void overrides() throws Exception {
        ControllerMain main = new ControllerMain();
        new CommandLine(main).parseArgs("--port=9090", "--lease-namespace=ops", "--lease-name=ty", "--identity=pod-a");
        ControllerConfig c = main.configure(config());
        assertEquals(9090, c.port());
        assertEquals(new LeaseElection.Settings("ops", "ty", "pod-a", Duration.ofSeconds(15), Duration.ofSeconds(10),
                Duration.ofNanos(2_242_857_142L)), c.election());
    }

    @Test
    @DisplayName("without --port the file's port stays; --no-leader-election leaves the Lease out (this replica always posts)")
    void noElection() throws Exception {
        ControllerMain main = new ControllerMain();
        new CommandLine(main).parseArgs("--no-leader-election");
        ControllerConfig c = main.configure(config());
        assertEquals(8080, c.port());
        assertNull(c.election());
    }

    @Test
    @DisplayName("Lease timings scale with --lease-seconds: renew within 2/3, retry every 1/7 + 100 ms")
    void scaled() {
        LeaseElection.Settings s = LeaseElection.Settings.scaled("n", "l", "i", Duration.ofSeconds(3));
        assertEquals(Duration.ofSeconds(2), s.renewDeadline());
        assertEquals(Duration.ofNanos(528_571_428), s.retryPeriod());
        assertEquals(Duration.ofSeconds(3), s.leaseDuration());
    }

    @Test
    @DisplayName("a configuration mistake exits 1 before any cluster is contacted")
    void badConfig() {
        assertEquals(1, new CommandLine(new ControllerMain()).execute("--config=" + dir.resolve("missing.yaml")));
    }
}
