package dev.trainyard.compiler.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.platform.Platform.Taint;
import dev.trainyard.compiler.platform.Platform.Toleration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * core/v1 {@code Toleration.ToleratesTaint}, which decides whether a flavor's own tolerations cover
 * its taints.
 */
class TaintTolerationTest {
  static final Taint GPU = new Taint("nvidia.com/gpu", "present", "NoSchedule");

  @ParameterizedTest(name = "{0} {1} {2} {3} → {4}")
  @CsvSource(
      nullValues = "-",
      value = {
        "nvidia.com/gpu, Exists, '', NoSchedule, true",
        "nvidia.com/gpu, Exists, '', '', true",
        "nvidia.com/gpu, Equal, present, NoSchedule, true",
        "nvidia.com/gpu, Equal, absent, NoSchedule, false",
        "nvidia.com/gpu, Exists, '', NoExecute, false",
        "other, Exists, '', NoSchedule, false",
        "'', Exists, '', '', true",
        "'', Equal, '', '', false"
      })
  @DisplayName("a toleration tolerates a taint by key, operator, value and effect")
  void tolerates(String key, String operator, String value, String effect, boolean expected) {
    assertEquals(
        expected, new Toleration(key, operator, value, effect, Optional.empty()).tolerates(GPU));
  }
}
