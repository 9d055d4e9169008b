package dev.trainyard.gitops.preview;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Resource amounts as a reviewer reads them: memory in Gi, everything else as a plain number. */
final class Quantity {
  private static final BigDecimal GI = BigDecimal.valueOf(1L << 30);

  private Quantity() {}

  static String show(String resource, BigDecimal value) {
    if (resource.equals("memory") || resource.endsWith("-storage")) {
      return plain(value.divide(GI, 1, RoundingMode.HALF_UP)) + "Gi";
    }
    return plain(value);
  }

  static String plain(BigDecimal value) {
    // stripTrailingZeros of any zero is BigDecimal.ZERO (JDK 8+), so 0.00 prints as 0 too.
    return value.stripTrailingZeros().toPlainString();
  }
}
