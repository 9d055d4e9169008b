package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Optional;

/**
 * JAX, one process per pod. A bare {@code jax.distributed.initialize()} reads only {@code
 * JAX_COORDINATOR_ADDRESS} from env and detects process count and id from the cluster; its
 * Kubernetes detector ({@code jax/_src/clusters/k8s_cluster.py}; it imports the {@code kubernetes}
 * package, which the jax runtime's {@code setup} installs when the image lacks it) reads the pod's
 * Job ({@code parallelism}) and {@code JOB_COMPLETION_INDEX}, so the run gets one replicated job
 * with {@code parallelism = completions = nodes}, the default subdomain, and a ServiceAccount
 * allowed to get and list pods and jobs. {@code JAX_NUM_PROCESSES}/{@code JAX_PROCESS_ID} are set
 * too, for scripts that pass them explicitly (Kubeflow Trainer's JAX plugin sets the same names).
 */
final class JaxPlugin implements FrameworkPlugin {
  @Override
  public FrameworkOutput render(ResolvedJob job, JobLayout layout, RenderServices services) {
    PodSpecBuilder pods = new PodSpecBuilder(job);
    EnvList env = RankEnv.neutral(job, pods);
    env.put("JAX_COORDINATOR_ADDRESS", RankEnv.masterAddr(job) + ":" + RankEnv.MASTER_PORT);
    env.put("JAX_NUM_PROCESSES", Integer.toString(job.topology().nodes()));
    env.putFieldRef("JAX_PROCESS_ID", EnvList.COMPLETION_INDEX);
    ObjectNode spec = pods.podSpec(env, RankEnv.command(job), true);
    String account = job.naming().runName() + "-jax";
    spec.put("serviceAccountName", account);
    var node = layout.job(JobLayout.NODE).orElseThrow();
    return new FrameworkOutput(
        List.of(new ReplicatedJobPart(node, spec, Optional.empty())),
        rbac(job, account),
        List.of());
  }

  private static List<Manifest> rbac(ResolvedJob job, String account) {
    String ns = job.target().namespace();
    ObjectNode sa = Manifest.skeleton("v1", "ServiceAccount", account, ns);
    ObjectNode role = Manifest.skeleton("rbac.authorization.k8s.io/v1", "Role", account, ns);
    ArrayNode rules = role.putArray("rules");
    rule(rules, "", "pods");
    rule(rules, "batch", "jobs");
    ObjectNode binding =
        Manifest.skeleton("rbac.authorization.k8s.io/v1", "RoleBinding", account, ns);
    binding
        .putObject("roleRef")
        .put("apiGroup", "rbac.authorization.k8s.io")
        .put("kind", "Role")
        .put("name", account);
    binding
        .putArray("subjects")
        .addObject()
        .put("kind", "ServiceAccount")
        .put("name", account)
        .put("namespace", ns);
    return List.of(Manifest.of(sa), Manifest.of(role), Manifest.of(binding));
  }

  private static void rule(ArrayNode rules, String group, String resource) {
    ObjectNode r = rules.addObject();
    r.putArray("apiGroups").add(group);
    r.putArray("resources").add(resource);
    r.putArray("verbs").add("get").add("list");
  }
}
