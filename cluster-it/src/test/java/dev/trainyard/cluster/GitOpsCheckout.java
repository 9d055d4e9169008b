package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A work tree of the GitOps repo made with the git CLI (a fresh clone each time), authenticated to the
 * test's git server through {@link GitCli#withBasicAuth}. Used to seed the repo and by the stand-in
 * {@link CompiledTreePublisher}.
 */
final class GitOpsCheckout {

    private final Path dir;
    private final Map<String, String> env;

    private GitOpsCheckout(Path dir, Map<String, String> env) {
        this.dir = dir;
        this.env = env;
    }

    /** Clones {@code url} (it may be empty) into {@code dir}, on branch main. */
    static GitOpsCheckout clone(String url, GitHttpServer.Credentials credentials, Path dir) {
        Map<String, String> env = GitCli.withBasicAuth(GitCli.isolatedEnv(dir.getParent()), credentials);
        GitCli.run(dir.getParent(), env, "clone", "--quiet", url, dir.toString());
        GitCli.run(dir, env, "checkout", "--quiet", "-B", "main");
        return new GitOpsCheckout(dir, env);
    }

    Path dir() {
        return dir;
    }

    /** Commits every change with {@code message} and pushes it to main; returns the new commit's SHA. */
    String commitAndPush(String message) {
        GitCli.run(dir, env, "add", "--all");
        GitCli.run(dir, env, "commit", "--quiet", "-m", message);
        GitCli.run(dir, env, "push", "--quiet", "origin", "HEAD:refs/heads/main");
        return GitCli.run(dir, env, "rev-parse", "HEAD").trim();
    }

    /**
     * Writes the roots a sync tool points at, as {@code trainyard submit} does: {@code clusters/<c>/kustomization.yaml}
     * listing {@code _cluster} and each namespace, and {@code clusters/<c>/<ns>/kustomization.yaml} listing
     * {@code _queues} and each run, all sorted.
     */
    void writeRootKustomizations() {
        for (Path cluster : children(dir.resolve("clusters"))) {
            writeKustomization(cluster);
            children(cluster).stream().filter(ns -> !ns.getFileName().toString().startsWith("_"))
                    .forEach(GitOpsCheckout::writeKustomization);
        }
    }

    private static void writeKustomization(Path folder) {
        StringBuilder yaml = new StringBuilder("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n");
        children(folder).forEach(child -> yaml.append("- ").append(child.getFileName()).append('\n'));
        try {
            Files.writeString(folder.resolve("kustomization.yaml"), yaml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sub-folders of {@code folder}, sorted by name. */
    static List<Path> children(Path folder) {
        try (Stream<Path> list = Files.exists(folder) ? Files.list(folder) : Stream.empty()) {
            return list.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
