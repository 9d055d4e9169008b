package dev.trainyard.gitops.preview;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Resource amounts as a reviewer reads them: memory in Gi, everything else as a plain number. */
final class Quantity {
  private static final BigDecimal GI = BigDecimal.valueOf(1L << 30);

  private Quantity() {}

  /**
   * {@code value} of {@code resource} (bytes for memory and storage) as a reviewer reads it: memory
   * in Gi when that is exact to one decimal ({@code 1.5Gi}), else in the largest binary unit that
   * is exact ({@code 32767Mi}, never rounded to {@code 32Gi}, which would look equal to a 32Gi
   * request it does not fit), else in bytes; anything else as a plain number.
   */
  static String show(String resource, BigDecimal value) {
    if (resource.equals("memory") || resource.endsWith("-storage")) {
      BigDecimal gi = value.divide(GI, 1, RoundingMode.HALF_UP);
      if (gi.multiply(GI).compareTo(value) == 0) {
        return plain(gi) + "Gi";
      }
      for (String unit : new String[] {"Mi", "Ki"}) {
        BigDecimal size = BigDecimal.valueOf(unit.equals("Mi") ? 1L << 20 : 1L << 10);
        BigDecimal[] qr = value.divideAndRemainder(size);
        if (qr[1].signum() == 0) {
          return plain(qr[0]) + unit;
        }
      }
    }
    return plain(value);
  }

  static String plain(BigDecimal value) {
    // stripTrailingZeros of any zero is BigDecimal.ZERO (JDK 8+), so 0.00 prints as 0 too.
    return value.stripTrailingZeros().toPlainString();
  }
}
