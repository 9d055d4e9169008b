package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Failure handling through the real controllers: pods labelled {@code trainyard.dev/kwok-outcome=fail}
 * are ended with exit code 1 by this module's kwok Stage ({@code kwok/pod-fail-stage.yaml}); with
 * {@code backoffLimit: 0} the Job fails, and the JobSet controller applies {@code failurePolicy}
 * (no rules: every failure is RestartJobSet until {@code maxRestarts}, then condition Failed with reason
 * ReachedMaxRestarts; jobset pkg/controllers/failure_policy.go).
 */
@ExtendWith(KubeClusterExtension.class)
class FailurePolicyIT {

    static final int MAX_RESTARTS = 2;
    static final Duration FAIL_TIMEOUT = Duration.ofSeconds(180);

    @Test
    @DisplayName("a JobSet whose pods always fail restarts maxRestarts times, then turns Failed (ReachedMaxRestarts)")
    void restartsUpToMaxRestartsThenFails(KubeCluster cluster) {
        String namespace = cluster.newNamespace();
        GenericKubernetesResource jobSet = JobSets.minimal("always-fails", "node", 1, 2);
        JobSets.labelPods(jobSet, "trainyard.dev/kwok-outcome", "fail");
        JobSets.setMaxRestarts(jobSet, MAX_RESTARTS);
        Manifests manifests = new Manifests(cluster.client());
        manifests.apply(manifests.placed(jobSet, namespace));

        var stored = JobSets.api(cluster.client()).inNamespace(namespace).withName("always-fails");
        Eventually.await("JobSet always-fails Failed", FAIL_TIMEOUT,
                () -> JobSets.hasCondition(stored.get(), "Failed"), () -> JobSets.describe(stored.get()));
        GenericKubernetesResource failed = stored.get();
        assertEquals(MAX_RESTARTS, JobSets.restarts(failed), "status.restarts; " + JobSets.describe(failed));
        assertEquals("ReachedMaxRestarts", JobSets.conditionReason(failed, "Failed"), JobSets.describe(failed));
    }
}
