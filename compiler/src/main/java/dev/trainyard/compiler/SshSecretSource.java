package dev.trainyard.compiler;

import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.render.RenderServices;
import dev.trainyard.compiler.resolve.ResolvedJob;

/**
 * Supplies the SSH Secret of an MPI run to the render stage: the existing one when the run already
 * exists in the GitOps tree (re-compiles stay byte-identical and keys stable), else fresh key
 * material encrypted per platform.yaml.
 */
@FunctionalInterface
public interface SshSecretSource {
  /**
   * The render services for one run, or the diagnostics (E702) that refuse the Secret the run's
   * folder already holds.
   */
  StageResult<RenderServices> forRun(CompileRequest request, ResolvedJob job);
}
