package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedCheckpoint;
import dev.trainyard.compiler.spec.VolumeMount;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The {@code run} lint of a checkpointed run ({@code checkpoint:}), at the offending word:
 *
 * <ul>
 *   <li>W438: a checkpoint flag names a folder that does not survive a restart: a relative path
 *       (the working directory is the pod's clone, an emptyDir) or an absolute one on no volume.
 *       Flags: HF Trainer {@code --output_dir}, the DDP tutorial's {@code --snapshot_path},
 *       Lightning CLI {@code --trainer.default_root_dir}, torchtune's {@code output_dir=}, and the
 *       common {@code --checkpoint_dir}, {@code --save_dir}, {@code --ckpt_dir}.
 *   <li>W437: a trainer Trainyard knows is started without the one flag that makes it resume: HF
 *       Trainer scripts ({@code --output_dir} without {@code --resume_from_checkpoint}): {@code
 *       ${RESUME_FROM:+--resume_from_checkpoint "$RESUME_FROM"}} (HF's {@code
 *       TrainingArguments.resume_from_checkpoint}; a bare empty value would make the Trainer look
 *       for a checkpoint at ""); LightningCLI {@code fit} without {@code --ckpt_path}: {@code
 *       --ckpt_path last} (Lightning's {@code ckpt_path="last"}); torchtune {@code tune run}
 *       without {@code resume_from_checkpoint=}: {@code resume_from_checkpoint=True} (its recipe
 *       configs' key); the DDP tutorial ({@code --snapshot_path}): {@code --snapshot_path
 *       "$CHECKPOINT_DIR/snapshot.pt"} (it loads the snapshot when the file exists).
 * </ul>
 *
 * A {@code run} that names {@code $RESUME_FROM} anywhere is taken to resume by itself.
 */
final class CheckpointLint {
  private static final String[] PATH_FLAGS = {
    "--output_dir",
    "--output-dir",
    "--snapshot_path",
    "--trainer.default_root_dir",
    "--checkpoint_dir",
    "--save_dir",
    "--ckpt_dir",
    "output_dir"
  };

  private CheckpointLint() {}

  static void check(RunCheck c) {
    Optional<ResolvedCheckpoint> checkpoint = c.job().checkpoint();
    if (checkpoint.isEmpty()) {
      return;
    }
    for (RunTokens.Flag f : c.run().flags(PATH_FLAGS)) {
      lost(c, f, checkpoint.get());
    }
    if (!c.run().code().contains("RESUME_FROM")) {
      notResumed(c);
    }
  }

  /** W438 when {@code flag}'s value is not on the checkpoint volume or another volume. */
  private static void lost(RunCheck c, RunTokens.Flag flag, ResolvedCheckpoint checkpoint) {
    String value = flag.value().text().replace("\"", "").replace("'", "");
    if (value.startsWith("$") || survives(c, value, checkpoint)) {
      return;
    }
    c.warning(
        DiagnosticCode.CHECKPOINT_LOST,
        flag.value(),
        "`run` writes checkpoints to \""
            + value
            + "\", "
            + (value.startsWith("/")
                ? "which is on no volume"
                : "inside the pod's copy of the code")
            + ", so they are lost when the pod restarts",
        "write them below $CHECKPOINT_DIR, e.g. `"
            + flag.name()
            + (flag.name().startsWith("--") ? " " : "=")
            + "\"$CHECKPOINT_DIR"
            + (flag.name().equals("--snapshot_path") ? "/snapshot.pt" : "")
            + "\"`");
  }

  private static boolean survives(RunCheck c, String value, ResolvedCheckpoint checkpoint) {
    if (!value.startsWith("/")) {
      return false;
    }
    String path = Path.of(value).normalize().toString();
    if (inside(path, checkpoint.path())) {
      return true;
    }
    List<VolumeMount> volumes = c.job().volumes();
    return volumes.stream().anyMatch(v -> !v.readOnly() && inside(path, v.path()));
  }

  private static boolean inside(String path, String folder) {
    String f = Path.of(folder).normalize().toString();
    return path.equals(f) || path.startsWith(f.endsWith("/") ? f : f + "/");
  }

  private static void notResumed(RunCheck c) {
    RunTokens run = c.run();
    Optional<RunTokens.Flag> output = run.flag("--output_dir", "--output-dir");
    Optional<RunTokens.Word> tune = run.pair("tune", "run");
    Optional<RunTokens.Flag> snapshot = run.flag("--snapshot_path");
    Optional<RunTokens.Word> fit = run.word("fit");
    if (tune.isPresent()) {
      if (run.words().stream().noneMatch(w -> w.text().startsWith("resume_from_checkpoint="))) {
        warn(c, tune.get(), "torchtune", "resume_from_checkpoint=True");
      }
    } else if (snapshot.isPresent()) {
      if (!snapshot.get().value().text().contains("CHECKPOINT_DIR")) {
        warn(
            c,
            snapshot.get().word(),
            "DDP tutorial",
            "--snapshot_path \"$CHECKPOINT_DIR/snapshot.pt\"");
      }
    } else if (output.isPresent()) {
      if (!run.hasAny("--resume_from_checkpoint", "--resume-from-checkpoint")) {
        warn(
            c,
            output.get().word(),
            "Hugging Face Trainer",
            "${RESUME_FROM:+--resume_from_checkpoint \"$RESUME_FROM\"}");
      }
    } else if (fit.isPresent() && !run.hasAny("--ckpt_path")) {
      warn(c, fit.get(), "LightningCLI", "--ckpt_path last");
    }
  }

  private static void warn(RunCheck c, RunTokens.Word at, String trainer, String flag) {
    c.warning(
        DiagnosticCode.CHECKPOINT_NOT_RESUMED,
        at,
        "`checkpoint` is set, but the "
            + trainer
            + " command in `run` starts from scratch after every restart: it is not told to resume",
        "add `" + flag + "` to `run` (docs/checkpoints.md)");
  }
}
