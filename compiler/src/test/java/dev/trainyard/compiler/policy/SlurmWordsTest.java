package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The word check in front of the Slurm pattern finds what the pattern alone finds, where it does.
 */
class SlurmWordsTest {
  @Test
  @DisplayName(
      "for 20,000 random commands of Slurm words, near-misses and separators, slurm() finds the pattern's first match, at the same place")
  void asThePattern() {
    String[] parts = {
      "srun",
      "scontrol",
      "sbatch",
      "$SLURM_",
      "${SLURM_",
      "SLURM_",
      "$SLURM",
      "xsrun",
      "srunx",
      "s",
      "run",
      " ",
      ";",
      "&",
      "|",
      "(",
      "\n",
      "torchrun",
      "$",
      "{",
      "NODEID",
      "sbatc"
    };
    Random random = new Random(24);
    int found = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = random.nextInt(6); n >= 0; n--) {
        s.append(parts[random.nextInt(parts.length)]);
      }
      String text = s.toString();
      Matcher m = SlurmRule.SLURM.matcher(text);
      Optional<Integer> expected = m.find() ? Optional.of(m.start()) : Optional.empty();
      assertEquals(expected, SlurmRule.slurm(text).map(Matcher::start), text);
      found += expected.isPresent() ? 1 : 0;
    }
    assertTrue(found > 2_000 && found < 18_000, found + " of 20,000 found");
  }

  @Test
  @DisplayName("the word check says false exactly for commands without a Slurm word")
  void wordCheck() {
    for (String slurm : new String[] {"$SLURM_NODEID", "srun x", "scontrol show", "sbatch a"}) {
      assertTrue(SlurmRule.mentionsSlurm(slurm), slurm);
    }
    assertFalse(SlurmRule.mentionsSlurm("torchrun --nnodes 2 train.py"));
  }
}
