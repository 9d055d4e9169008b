package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Stand-in for {@code trainyard submit}/{@code prune} while they are not available: {@code trainyard compile
 * --out} into a git CLI clone of the GitOps repo, the root kustomizations written the way submit writes them,
 * one commit, {@code git push}. Prune deletes the run's folder and rewrites the roots. Selected with
 * {@code -Dtrainyard.it.publisher=compile}; it exists to debug the Flux harness, not to test the product.
 */
final class CompiledTreePublisher implements RunPublisher {

    private final String url;
    private final GitHttpServer.Credentials credentials;
    private final Path workDir;
    private final AtomicInteger checkouts = new AtomicInteger();

    CompiledTreePublisher(String url, GitHttpServer.Credentials credentials, Path workDir) {
        this.url = url;
        this.credentials = credentials;
        this.workDir = workDir;
    }

    @Override
    public String submit(Path trainYaml, Path platform) {
        GitOpsCheckout checkout = freshCheckout();
        TrainyardCli.Result result = TrainyardCli.run("compile", trainYaml.toString(), "--platform", platform.toString(),
                "--out", checkout.dir().toString()).requireSuccess("trainyard compile");
        String run = result.runName().orElseThrow(() -> new AssertionError("compile printed no run:\n" + result.out()));
        checkout.writeRootKustomizations();
        checkout.commitAndPush("submit " + run);
        return run;
    }

    @Override
    public void prune(String run) {
        GitOpsCheckout checkout = freshCheckout();
        try (Stream<Path> walk = Files.walk(checkout.dir().resolve("clusters"), 3)) {
            Path folder = walk.filter(p -> p.getFileName().toString().equals(run) && Files.isDirectory(p)).findFirst()
                    .orElseThrow(() -> new AssertionError("run " + run + " is not in the GitOps repo"));
            deleteTree(folder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        checkout.writeRootKustomizations();
        checkout.commitAndPush("prune " + run);
    }

    private GitOpsCheckout freshCheckout() {
        return GitOpsCheckout.clone(url, credentials, LocalCluster.mkdirs(workDir).resolve("checkout-" + checkouts.incrementAndGet()));
    }

    private static void deleteTree(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
