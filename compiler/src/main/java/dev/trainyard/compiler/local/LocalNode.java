package dev.trainyard.compiler.local;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One pod of the compiled JobSet as a process on this machine.
 *
 * <pre>{@code
 * LocalNode[name=node-1, env={NODE_RANK=1, PET_MASTER_ADDR=127.0.0.1, PET_MASTER_PORT=41231, ...},
 *           workdir=examples/pytorch-ddp]
 * }</pre>
 *
 * @param name the name {@code trainyard logs --all} prefixes its lines with, e.g. {@code node-1}
 * @param env exactly the container's environment, hostnames rewritten to 127.0.0.1 and ports to
 *     free ones on this host, Secret values filled in
 * @param workdir the container's working directory relative to the root of the cloned commit
 *     ({@code ""} for the root)
 */
public record LocalNode(String name, SortedMap<String, String> env, String workdir) {
  public LocalNode {
    env = Collections.unmodifiableSortedMap(new TreeMap<>(env));
  }

  /** The value of {@code key} in this node's environment, or {@code ""}. */
  public String get(String key) {
    return env.getOrDefault(key, "");
  }

  static LocalNode of(String name, Map<String, String> env, String workdir) {
    return new LocalNode(name, new TreeMap<>(env), workdir);
  }
}
