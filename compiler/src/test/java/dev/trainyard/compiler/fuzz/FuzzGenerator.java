package dev.trainyard.compiler.fuzz;

import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The seeded sequence of fuzz inputs: half mutate a train.yaml (compiled with its case's platform),
 * a quarter a platform.yaml, a quarter a runtime definition (compiled by a train.yaml that names
 * it). The same seed gives the same inputs.
 */
public final class FuzzGenerator {
  private final FuzzSeeds seeds;
  private final Random random;
  private final YamlMutator mutator;
  private int index;

  public FuzzGenerator(FuzzSeeds seeds, long seed) {
    this.seeds = seeds;
    this.random = new Random(seed);
    this.mutator = new YamlMutator(random);
  }

  /** The next input. */
  public FuzzInput next() {
    int kind = random.nextInt(4);
    int at = index++;
    if (kind == 2) {
      FuzzSeeds.Seed platform = pick(seeds.platforms());
      YamlMutator.Mutated m = mutator.mutate(platform.text());
      return new FuzzInput(
          at,
          "platform.yaml",
          platform.path(),
          m.steps(),
          pick(seeds.trainYamls()).text(),
          Optional.of(m.text()),
          Optional.empty());
    }
    if (kind == 3) {
      FuzzSeeds.Seed runtime = pick(seeds.runtimes());
      YamlMutator.Mutated m = mutator.mutate(runtime.text());
      String folder = folderOf(runtime.path());
      String train =
          "runtime: "
              + folder.replace('/', '@')
              + "\nrun: python train.py\nnodes: "
              + (1 + random.nextInt(3))
              + "\n";
      return new FuzzInput(
          at,
          "runtime.yaml",
          runtime.path(),
          m.steps(),
          train,
          Optional.empty(),
          Optional.of(new FuzzInput.Runtime(folder, m.text())));
    }
    FuzzSeeds.Seed train = pick(seeds.trainYamls());
    YamlMutator.Mutated m = mutator.mutate(train.text());
    return new FuzzInput(
        at,
        "train.yaml",
        train.path(),
        m.steps(),
        m.text(),
        platformOf(train.path()),
        Optional.empty());
  }

  /** {@code <name>/<version>} of {@code .../<name>/<version>/runtime.yaml}. */
  private static String folderOf(String path) {
    String[] parts = path.split("/");
    return parts[parts.length - 3] + "/" + parts[parts.length - 2];
  }

  /**
   * The platform.yaml next to a golden train.yaml, examples/platform.yaml for an example, else the
   * embedded default.
   */
  private Optional<String> platformOf(String trainPath) {
    String dir = trainPath.substring(0, trainPath.lastIndexOf('/') + 1);
    String wanted =
        trainPath.startsWith("examples/") ? "examples/platform.yaml" : dir + "platform.yaml";
    return seeds.platforms().stream()
        .filter(p -> p.path().equals(wanted))
        .map(FuzzSeeds.Seed::text)
        .findFirst();
  }

  private FuzzSeeds.Seed pick(List<FuzzSeeds.Seed> from) {
    return from.get(random.nextInt(from.size()));
  }
}
