package dev.trainyard.compiler.units;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities ({@code 500m}, {@code 4}, {@code 32Gi}, {@code 1.5G}), as defined
 * by {@code k8s.io/apimachinery/pkg/api/resource}: decimal SI and binary suffixes, and the decimal
 * exponent form ({@code 2e3} = 2000, which YAML also reads as a number and Trainyard writes as
 * written).
 */
public final class Quantities {
  private static final Pattern QUANTITY =
      Pattern.compile("^([0-9]+(?:\\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$");
  private static final Pattern EXPONENT =
      Pattern.compile("^([0-9]+(?:\\.[0-9]+)?)[eE]([+-]?[0-9]{1,9})$");
  private static final Map<String, BigDecimal> FACTORS =
      Map.ofEntries(
          Map.entry("", BigDecimal.ONE),
          Map.entry("m", new BigDecimal("0.001")),
          Map.entry("k", BigDecimal.TEN.pow(3)),
          Map.entry("M", BigDecimal.TEN.pow(6)),
          Map.entry("G", BigDecimal.TEN.pow(9)),
          Map.entry("T", BigDecimal.TEN.pow(12)),
          Map.entry("P", BigDecimal.TEN.pow(15)),
          Map.entry("E", BigDecimal.TEN.pow(18)),
          Map.entry("Ki", BigDecimal.valueOf(2).pow(10)),
          Map.entry("Mi", BigDecimal.valueOf(2).pow(20)),
          Map.entry("Gi", BigDecimal.valueOf(2).pow(30)),
          Map.entry("Ti", BigDecimal.valueOf(2).pow(40)),
          Map.entry("Pi", BigDecimal.valueOf(2).pow(50)),
          Map.entry("Ei", BigDecimal.valueOf(2).pow(60)));

  private Quantities() {}

  /**
   * The quantity's value in base units (cores, bytes), or empty when {@code text} is not a
   * quantity.
   */
  public static Optional<BigDecimal> parse(String text) {
    Matcher e = EXPONENT.matcher(text.trim());
    if (e.matches()) {
      return Optional.of(
          new BigDecimal(e.group(1)).scaleByPowerOfTen(Integer.parseInt(e.group(2))));
    }
    Matcher m = QUANTITY.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    String suffix = m.group(2) == null ? "" : m.group(2);
    return Optional.of(new BigDecimal(m.group(1)).multiply(FACTORS.get(suffix)));
  }

  /** Whole CPUs in a CPU quantity, rounded down, at least 1 ({@code 500m} → 1, {@code 2.5} → 2). */
  public static int wholeCpus(String cpu) {
    // Capped at Integer.MAX_VALUE: a request that large is refused by the quota check, not by an
    // overflow here.
    return parse(cpu)
        .map(
            v ->
                Math.max(
                    1,
                    v.min(BigDecimal.valueOf(Integer.MAX_VALUE))
                        .setScale(0, RoundingMode.FLOOR)
                        .intValueExact()))
        .orElse(1);
  }

  /**
   * Half of a memory quantity, written in Mi or Gi ({@code 32Gi} → {@code 16Gi}); the default
   * {@code /dev/shm}.
   */
  public static String half(String memory) {
    BigDecimal bytes = parse(memory).orElse(BigDecimal.valueOf(2).pow(31));
    long mib = bytes.divide(BigDecimal.valueOf(2).pow(21), 0, RoundingMode.FLOOR).longValue();
    return mib % 1024 == 0 ? (mib / 1024) + "Gi" : Math.max(mib, 64) + "Mi";
  }
}
