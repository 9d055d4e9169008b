package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.runtime.Framework;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The number a launcher flag's value becomes in a pod, when it can be known: a literal ({@code 8}),
 * one of Trainyard's count variables ({@code $NNODES}, {@code ${PET_NPROC_PER_NODE}}), or a product
 * of those in shell arithmetic ({@code $((NNODES * GPUS_PER_NODE))}). Anything else is empty: the
 * lint trusts it.
 */
final class Arithmetic {
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)}?");
  private static final Pattern PRODUCT = Pattern.compile("\\$\\(\\((.*)\\)\\)");

  private Arithmetic() {}

  static Optional<Integer> value(RunCheck c, String text) {
    Map<String, Integer> known = known(c);
    Matcher product = PRODUCT.matcher(text.strip());
    if (product.matches()) {
      return product(product.group(1), known);
    }
    Matcher variable = VARIABLE.matcher(text.strip());
    if (variable.matches()) {
      return Optional.ofNullable(known.get(variable.group(1)));
    }
    return factor(text.strip(), Map.of());
  }

  /**
   * The product of {@code a * b * …} when every factor is known; empty when one is not, or when it
   * overflows an int.
   */
  private static Optional<Integer> product(String factors, Map<String, Integer> known) {
    int result = 1;
    for (String factor : factors.split("\\*")) {
      Optional<Integer> f =
          factor(factor.strip().replaceFirst("^\\$\\{?", "").replaceFirst("}$", ""), known);
      if (f.isEmpty()) {
        return Optional.empty();
      }
      try {
        result = Math.multiplyExact(result, f.get());
      } catch (ArithmeticException e) {
        return Optional.empty();
      }
    }
    return Optional.of(result);
  }

  private static Optional<Integer> factor(String text, Map<String, Integer> known) {
    if (text.matches("[0-9]{1,9}")) {
      return Optional.of(Integer.parseInt(text));
    }
    return Optional.ofNullable(known.get(text));
  }

  /** The count variables of this job's pods and their values. */
  private static Map<String, Integer> known(RunCheck c) {
    Map<String, Integer> known = new HashMap<>();
    known.put("NNODES", c.nodes());
    known.put("GPUS_PER_NODE", c.job().resources().gpus());
    if (c.framework() == Framework.TORCH) {
      known.put("PET_NNODES", c.nodes());
      known.put("PET_NPROC_PER_NODE", c.procsPerNode());
    }
    if (c.framework() == Framework.JAX) {
      known.put("JAX_NUM_PROCESSES", c.nodes());
    }
    return known;
  }
}
