package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #19: every hint of the accelerate family, pasted back into train.yaml, compiles and forms
 * one world of 2 on 2 namespace hosts: real accelerate (scripts/python-envs' accelerate-over-torch
 * environment) on the CPU with gloo, each pod with exactly its compiled command and env. The script
 * all-reduces its process index + 1 through {@code Accelerator.reduce}, so only a world of 2 prints
 * {@code sum 3}; a node training alone prints {@code of 1}.
 */
class AccelerateHostsIT {
  static final String ACCELERATE_ENV = "accelerate-1.15.0-torch-2.13.0";

  static final String SCRIPT =
      "import torch\nfrom accelerate import Accelerator\n"
          + "acc = Accelerator()\n"
          + "t = torch.ones(1, device=acc.device) * (acc.process_index + 1)\n"
          + "s = acc.reduce(t, reduction='sum')\n"
          + "print(f'accelerate rank {acc.process_index} of {acc.num_processes} sum {int(s.item())}"
          + " {acc.distributed_type}', flush=True)\n"
          // Leave the group together: a rank whose gloo peer exits first aborts at exit.
          + "acc.wait_for_everyone()\n"
          + "if torch.distributed.is_initialized():\n    torch.distributed.destroy_process_group()\n";

  /**
   * Config files the family's {@code --config_file} lines name, as {@code accelerate config} writes
   * them.
   */
  static final String ONE_MACHINE =
      "compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nnum_machines: 1\nnum_processes: 1\nmachine_rank: 0\nuse_cpu: true\n";

  /** Lines of the accelerate family as READMEs write them, each wrong for a 2-node run. */
  static final List<String> FAMILY =
      List.of(
          "accelerate launch train.py",
          "accelerate launch --num_processes 8 --machine_rank 0 --main_process_ip 10.0.0.1 train.py",
          "python -m accelerate.commands.launch --num_machines 2 train.py",
          "accelerate launch --multi_gpu --num_machines 2 --num_processes 2 train.py",
          "accelerate launch --config_file one.yaml train.py");

  private static final Pattern RUN = Pattern.compile("`run: ([^`\"]*)`");

  private PythonHosts hosts;

  @BeforeEach
  void tools() throws IOException {
    hosts = PythonHosts.open(ACCELERATE_ENV, "accelerate");
  }

  @AfterEach
  void closeHosts() throws Exception {
    hosts.close();
  }

  private static Map<String, String> files(String run) {
    return Map.of(
        "train.py",
        SCRIPT,
        "one.yaml",
        ONE_MACHINE,
        "train.yaml",
        "nodes: 2\nprocsPerNode: 1\nrun: " + run + "\n");
  }

  @Test
  @DisplayName(
      "issue #19: each hint the lint gives an accelerate line on 2 CPU nodes compiles clean and trains as one world of 2 (reduce 1+2 = 3)")
  void everyAccelerateHintFormsTheWorld() throws Exception {
    Set<String> hinted = new LinkedHashSet<>();
    int i = 0;
    for (String line : FAMILY) {
      List<Diagnostic> found =
          CompiledProject.diagnose(hosts.work().resolve("lint-" + i++), "a", files(line)).stream()
              .filter(d -> d.pointer().equals("/run"))
              .toList();
      assertFalse(found.isEmpty(), "the lint must refuse: " + line);
      for (Diagnostic d : found) {
        Matcher m = RUN.matcher(d.hint());
        assertTrue(m.find(), "a hint with a run line: " + d);
        hinted.add(m.group(1));
      }
    }
    List<String> failures = new ArrayList<>();
    for (String run : hinted) {
      String all = "";
      // Each hinted run on hosts of its own, closed before the next starts.
      try (PythonHosts one = PythonHosts.open(ACCELERATE_ENV, "accelerate-hint")) {
        CompiledProject project =
            CompiledProject.compile(one.work().resolve("repo"), "a", files(run), Optional.empty());
        for (RunningPod pod : one.start(project, "node")) {
          assertEquals(0, pod.requireExit(PythonHosts.TRAIN_TIMEOUT), run + "\n" + pod.output());
          all += pod.output();
        }
      }
      if (!all.contains("accelerate rank 0 of 2 sum 3")
          || !all.contains("accelerate rank 1 of 2 sum 3")) {
        failures.add(run + "\n" + all);
      }
    }
    assertTrue(failures.isEmpty(), "hints that did not form one world of 2: " + failures);
    assertTrue(hinted.size() >= 2, "the family gives hints: " + hinted);
  }
}
