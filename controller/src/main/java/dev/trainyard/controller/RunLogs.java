package dev.trainyard.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.LogWatch;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The logs of a run's pods for {@code trainyard logs}: by default the launcher (an MPI run) or node 0 (rank
 * 0), one node with {@code --node N}, or every pod with {@code --all}; pods of the current attempt only.
 * Every line is prefixed with the pod's node label, e.g. {@code [node-1] step 10 loss 2.31}. Following
 * ends when every followed container has ended, or after the timeout.
 */
public final class RunLogs {

    /** Which pods: {@code all}, or {@code node} (null: launcher, else node 0). */
    public record Selection(boolean all, Integer node) {
    }

    static final String RJOB = "jobset.sigs.k8s.io/replicatedjob-name";
    static final String JOB_INDEX = "jobset.sigs.k8s.io/job-index";
    static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

    private final RunReader reader;

    public RunLogs(RunReader reader) {
        this.reader = reader;
    }

    /** The pods {@code selection} names among {@code pods} of attempt {@code attempt}, in label order. */
    public static List<Pod> choose(List<Pod> pods, int attempt, Selection selection) {
        List<Pod> current = pods.stream()
                .filter(p -> Snapshots.integer(labels(p).get(Snapshots.RESTART_ATTEMPT), 0) == attempt)
                .sorted(Comparator.comparing(RunLogs::label)).toList();
        if (selection.all()) {
            return current;
        }
        if (selection.node() == null) {
            Optional<Pod> launcher = current.stream().filter(p -> "launcher".equals(labels(p).get(RJOB))).findFirst();
            if (launcher.isPresent()) {
                return List.of(launcher.get());
            }
        }
        String wanted = "node-" + (selection.node() == null ? 0 : selection.node());
        return current.stream().filter(p -> label(p).equals(wanted)).toList();
    }

    /**
     * "launcher", "node-N" (replicated job "node", N the rank: job index × pods per job + completion index is
     * not needed as Trainyard runs one node Job), else "RJOB-JOBINDEX-COMPLETIONINDEX".
     */
    public static String label(Pod pod) {
        Map<String, String> l = labels(pod);
        Map<String, String> a = pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
        String rjob = l.getOrDefault(RJOB, "pod");
        String completion = a.getOrDefault(COMPLETION_INDEX, l.getOrDefault(COMPLETION_INDEX, "0"));
        if ("launcher".equals(rjob)) {
            return "launcher";
        }
        if ("node".equals(rjob) && "0".equals(l.getOrDefault(JOB_INDEX, "0"))) {
            return "node-" + completion;
        }
        return rjob + "-" + l.getOrDefault(JOB_INDEX, "0") + "-" + completion;
    }

    /** Prints the chosen pods' logs to {@code out}, each line prefixed; returns the number of pods read. */
    public int print(ObservedRun run, Selection selection, boolean follow, PrintWriter out, Duration timeout) {
        List<Pod> pods = choose(reader.podsOf(run.key()), run.observation().jobSet().restarts(), selection);
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, pods.size()));
        try {
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            for (Pod pod : pods) {
                futures.add(threads.submit(() -> stream(pod, follow, out)));
            }
            threads.shutdown();
            if (!threads.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            threads.shutdownNow();
        }
        return pods.size();
    }

    private void stream(Pod pod, boolean follow, PrintWriter out) {
        String prefix = "[" + label(pod) + "] ";
        var resource = reader.client().pods().inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()).inContainer(pod.getSpec().getContainers().get(0).getName());
        try {
            if (!follow) {
                prefixed(prefix, resource.getLog(), out);
                return;
            }
            try (LogWatch watch = resource.watchLog();
                    BufferedReader lines = new BufferedReader(new InputStreamReader(watch.getOutput(),
                            StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    synchronized (out) {
                        out.println(prefix + line);
                        out.flush();
                    }
                }
            }
        } catch (KubernetesClientException | IOException e) {
            synchronized (out) {
                out.println(prefix + "(no logs: " + e.getMessage() + ")");
            }
        }
    }

    /** {@code text} line by line, each line with {@code prefix}; a final newline adds no empty line. */
    static void prefixed(String prefix, String text, PrintWriter out) {
        if (text == null || text.isEmpty()) {
            return;
        }
        String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        synchronized (out) {
            for (String line : body.split("\n", -1)) {
                out.println(prefix + line);
            }
            out.flush();
        }
    }

    private static Map<String, String> labels(Pod p) {
        return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
    }
}
