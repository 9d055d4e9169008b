package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link PreviousRuns}: the latest earlier run of a train.yaml, and its memory of JobSets'
 * annotations by blob id across previews in one JVM (the resident server previews again and again
 * against a tree of 10,000 runs).
 */
class PreviousRunsTest {
  private static final Platform EMBEDDED =
      new PlatformLoader(new YamlDocumentLoader(), new NetworkntSchemaValidator())
          .load(Optional.empty(), PlatformLoader.EMBEDDED_NAME)
          .value()
          .orElseThrow();
  private static final String REPO = "https://github.com/acme/ml.git";

  /** Ids unique to this test run, so no other test's memory answers for them. */
  private final String salt = UUID.randomUUID().toString();

  private static String jobSet(String run, String createdAt, String commit) {
    return "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  annotations:\n"
        + "    trainyard.dev/created-at: \""
        + createdAt
        + "\"\n    trainyard.dev/source-commit: "
        + commit
        + "\n    trainyard.dev/source-path: jobs/a/train.yaml\n    trainyard.dev/source-repo: "
        + REPO
        + "\n  name: "
        + run
        + "\nspec: {}\n";
  }

  private static RunFacts added() {
    return new RunFacts(
        new RunFolder("local", "default", "a-ffffff"),
        "a",
        REPO,
        "jobs/a/train.yaml",
        "c3",
        "2026-12-04T10:00:00Z",
        "torch",
        "img",
        "",
        "default",
        1,
        1,
        0,
        "",
        new TreeMap<>());
  }

  private PreviousRuns previous(Snapshot base) {
    return new PreviousRuns(base, new JobSetFacts(EMBEDDED, new YamlTrees()));
  }

  @Test
  @DisplayName(
      "a second lookup over a tree with the same blob ids reads no JobSet and finds the same run; a changed blob is read; a tree without ids reads every time")
  void remembersByBlobId() {
    Map<String, String> files = new TreeMap<>();
    files.put(path("a-000001"), jobSet("a-000001", "2026-12-01T10:00:00Z", "c1"));
    files.put(path("a-000002"), jobSet("a-000002", "2026-12-02T10:00:00Z", "c2"));
    Files first = new Files(files, true);
    PreviousRuns.Found found = previous(first).of(added()).orElseThrow();
    assertEquals("a-000002", found.folder().run());
    assertEquals("c2", found.sourceCommit());
    assertEquals(2, first.reads.size(), first.reads.toString());
    assertTrue(PreviousRuns.remembered() >= 2);

    Files again = new Files(files, true);
    PreviousRuns.Found second = previous(again).of(added()).orElseThrow();
    assertEquals(found, second);
    assertEquals(List.of(), again.reads, "read again though remembered");

    Map<String, String> changed = new TreeMap<>(files);
    changed.put(path("a-000001"), jobSet("a-000001", "2026-12-03T10:00:00Z", "c9"));
    Files edited = new Files(changed, true);
    PreviousRuns.Found newer = previous(edited).of(added()).orElseThrow();
    assertEquals("a-000001", newer.folder().run(), "the edited JobSet's new time counts");
    assertEquals("c9", newer.sourceCommit());
    assertEquals(List.of(path("a-000001")), edited.reads);

    Files noIds = new Files(files, false);
    previous(noIds).of(added()).orElseThrow();
    previous(noIds).of(added()).orElseThrow();
    assertEquals(4, noIds.reads.size(), "a tree without blob ids is read each time");
  }

  @Test
  @DisplayName(
      "the memory holds at most KNOWN_LIMIT JobSets: the one past it starts it over; a forgotten blob is read again")
  void startsOverPastItsLimit() {
    PreviousRuns.forget();
    for (int i = 0; i < PreviousRuns.KNOWN_LIMIT; i++) {
      PreviousRuns.remember(salt + i, Map.of());
    }
    assertEquals(PreviousRuns.KNOWN_LIMIT, PreviousRuns.remembered());
    PreviousRuns.remember(salt + "one more", Map.of());
    assertEquals(1, PreviousRuns.remembered());
    PreviousRuns.forget();
    assertEquals(0, PreviousRuns.remembered());
  }

  private static String path(String run) {
    return new RunFolder("local", "default", run).jobSetFile();
  }

  /** Files in a map; blob ids (when {@code ids}) from the text, as git's are; reads counted. */
  private final class Files implements Snapshot {
    private final Map<String, String> files;
    private final boolean ids;
    final List<String> reads = new ArrayList<>();

    Files(Map<String, String> files, boolean ids) {
      this.files = files;
      this.ids = ids;
    }

    @Override
    public Optional<String> commit() {
      return Optional.of("base");
    }

    @Override
    public Optional<String> read(String path) {
      reads.add(path);
      return Optional.ofNullable(files.get(path));
    }

    @Override
    public Optional<String> blobId(String path) {
      String text = files.get(path);
      return ids && text != null
          ? Optional.of(UUID.nameUUIDFromBytes((salt + text).getBytes()).toString())
          : Optional.empty();
    }

    @Override
    public List<String> children(String folder) {
      String prefix = folder.isEmpty() ? "" : folder + "/";
      return files.keySet().stream()
          .filter(f -> f.startsWith(prefix))
          .map(f -> f.substring(prefix.length()))
          .map(f -> f.contains("/") ? f.substring(0, f.indexOf('/') + 1) : f)
          .distinct()
          .sorted()
          .toList();
    }

    @Override
    public SortedMap<String, String> folder(String folder) {
      SortedMap<String, String> out = new TreeMap<>();
      String prefix = folder + "/";
      files.forEach(
          (path, text) -> {
            if (path.startsWith(prefix)) {
              out.put(path.substring(prefix.length()), text);
            }
          });
      return out;
    }
  }
}
