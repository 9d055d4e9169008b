package dev.trainyard.compiler.policy;

import java.util.Optional;

/**
 * Reads a script that {@code run} names, so the lint can tell a script that joins a process group
 * by itself (it reads {@code MASTER_ADDR}, {@code NODE_RANK}, …) from one that would train alone on
 * every node. The policy stage stays free of I/O: the compiler's edge gives an implementation over
 * the committed folder.
 *
 * <pre>
 * RunScripts scripts = path -> Optional.of("import torch.distributed as dist\n...");
 * </pre>
 */
@FunctionalInterface
public interface RunScripts {
  /**
   * @param path the script as {@code run} names it, relative to the working directory ({@code
   *     train.py}, {@code src/train.py})
   * @return its text, or empty when it is not a readable file inside the working directory
   *     (absolute paths, {@code ..}, symlinks out of it, over the size limit, not UTF-8)
   */
  Optional<String> read(String path);
}
