package dev.trainyard.compiler.spec;

/**
 * {@code procsPerNode}: {@code auto} (one process per GPU; on CPU-only nodes the CPU count) or a
 * count ≥ 1.
 *
 * @param auto true for {@code auto}
 * @param count the explicit count; 0 when {@code auto}
 */
public record ProcsPerNode(boolean auto, int count) {
  public static final ProcsPerNode AUTO = new ProcsPerNode(true, 0);

  public static ProcsPerNode of(int count) {
    return new ProcsPerNode(false, count);
  }
}
