package dev.trainyard.cluster;

import java.nio.file.Path;

/**
 * How a Flux IT puts runs into the GitOps repo and takes them out again: {@link #submit} commits and pushes
 * one run and returns its name, {@link #prune} removes its folder in one pushed commit.
 *
 * <p>The product path is {@link TrainyardCliPublisher} ({@code trainyard submit} / {@code trainyard prune}).
 * {@link CompiledTreePublisher} is a stand-in built from {@code trainyard compile} and the git CLI for
 * debugging the harness while submit/prune are not available; choose it explicitly with
 * {@code -Dtrainyard.it.publisher=compile}.
 */
interface RunPublisher {

    /** Compiles {@code trainYaml} under {@code platform}, commits and pushes it; returns the run name. */
    String submit(Path trainYaml, Path platform);

    /** Removes run {@code run}'s folder from the GitOps repo in one commit and pushes it. */
    void prune(String run);

    /** The publisher that {@code -Dtrainyard.it.publisher} names: {@code cli} (default) or {@code compile}. */
    static RunPublisher chosen(String url, GitHttpServer.Credentials credentials, Path workDir) {
        String choice = System.getProperty("trainyard.it.publisher", "cli");
        return switch (choice) {
            case "cli" -> new TrainyardCliPublisher(url, credentials);
            case "compile" -> new CompiledTreePublisher(url, credentials, workDir);
            default -> throw new IllegalArgumentException("-Dtrainyard.it.publisher must be cli or compile, got " + choice);
        };
    }
}
