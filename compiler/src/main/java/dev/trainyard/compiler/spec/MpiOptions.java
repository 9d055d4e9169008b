package dev.trainyard.compiler.spec;

import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * train.yaml's {@code mpi} field: the Open MPI tuning a job legitimately needs, which Trainyard
 * renders into the launcher's {@code mpirun} command (values reach the shell only as environment
 * values, never spliced).
 *
 * <pre>
 * mpi:
 *   bindTo: none          # mpirun --bind-to none   (horovod docs/mpi.rst)
 *   mapBy: slot           # mpirun --map-by slot
 *   mca:
 *     btl_tcp_if_include: eth0   # mpirun --mca btl_tcp_if_include eth0
 * </pre>
 *
 * <p>Names and values are checked by {@code schemas/train.v1.schema.json} (letters, digits and a
 * few punctuation characters, no blanks or shell characters); the policy stage refuses MCA
 * parameters Trainyard sets itself and runtimes without Open MPI.
 *
 * @param bindTo {@code --bind-to} value ({@code none}, {@code core}, {@code numa:overload-allowed},
 *     …)
 * @param mapBy {@code --map-by} value ({@code slot}, {@code node}, {@code ppr:4:socket}, …)
 * @param mca MCA parameter name → value, sorted by name
 */
public record MpiOptions(
    Optional<String> bindTo, Optional<String> mapBy, SortedMap<String, String> mca) {
  public MpiOptions {
    mca = Collections.unmodifiableSortedMap(new TreeMap<>(mca));
  }
}
