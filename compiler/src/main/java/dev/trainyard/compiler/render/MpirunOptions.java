package dev.trainyard.compiler.render;

import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.List;

/**
 * train.yaml's {@code mpi} field in the launcher's {@code mpirun}: {@code --bind-to}, {@code
 * --map-by} and one {@code --mca NAME VALUE} per parameter (Open MPI 4 and 5 accept all three). The
 * values are user text, so they reach the launch script only as environment values ({@code
 * "$TRAINYARD_MPI_BIND_TO"}); the MCA names, checked by the schema to be {@code [a-z][a-z0-9_]*},
 * appear as words, like the {@code -x} names do.
 *
 * <pre>
 * mpi: {bindTo: none, mca: {btl_tcp_if_include: eth0}}
 * → env TRAINYARD_MPI_BIND_TO=none, TRAINYARD_MCA_btl_tcp_if_include=eth0
 * → mpirun … --bind-to "$TRAINYARD_MPI_BIND_TO" --mca btl_tcp_if_include "$TRAINYARD_MCA_btl_tcp_if_include"
 * </pre>
 */
final class MpirunOptions {
  static final String BIND_TO = "TRAINYARD_MPI_BIND_TO";
  static final String MAP_BY = "TRAINYARD_MPI_MAP_BY";
  static final String MCA_PREFIX = "TRAINYARD_MCA_";

  private MpirunOptions() {}

  /** The launcher's env that carries the values; nothing without an {@code mpi} field. */
  static void putEnv(ResolvedJob job, EnvList env) {
    job.spec()
        .mpi()
        .ifPresent(
            mpi -> {
              mpi.bindTo().ifPresent(v -> env.put(BIND_TO, v));
              mpi.mapBy().ifPresent(v -> env.put(MAP_BY, v));
              mpi.mca().forEach((name, value) -> env.put(MCA_PREFIX + name, value));
            });
  }

  /** The mpirun words, in a fixed order: bind, map, then MCA parameters by name. */
  static List<String> args(ResolvedJob job) {
    List<String> args = new ArrayList<>();
    job.spec()
        .mpi()
        .ifPresent(
            mpi -> {
              mpi.bindTo()
                  .ifPresent(v -> args.addAll(List.of("--bind-to", "\"$" + BIND_TO + "\"")));
              mpi.mapBy().ifPresent(v -> args.addAll(List.of("--map-by", "\"$" + MAP_BY + "\"")));
              mpi.mca()
                  .keySet()
                  .forEach(
                      name ->
                          args.addAll(List.of("--mca", name, "\"$" + MCA_PREFIX + name + "\"")));
            });
    return args;
  }
}
