package dev.trainyard.compiler.diagnostic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * "Did you mean" for runtimes, priority classes and queues: the nearest typo, else a name that
 * contains the word.
 */
class SuggestionsTest {
  @ParameterizedTest(name = "{0} vs {1} = {2}")
  @CsvSource({
    "torch, torch, 0",
    "troch, torch, 1",
    "kitten, sitting, 3",
    "'', abc, 3",
    "abc, '', 3",
    "abc, abd, 1",
    "ab, abc, 1",
    "abc, ab, 1",
    "ca, abc, 3",
    "abcdef, badcfe, 3"
  })
  @DisplayName(
      "distance counts inserts, deletes, substitutions and a swap of two neighbours as one edit each, never re-editing a swapped pair")
  void distance(String a, String b, int expected) {
    assertEquals(expected, Suggestions.distance(a, b));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "'', 1",
    "abcde, 1",
    "abcdef, 2",
    "abcdefgh, 2",
    "abcdefghi, 3",
    "abcdefghijklmnop, 3"
  })
  @DisplayName("a typo is one edit for names up to five letters, two up to eight, three beyond")
  void threshold(String word, int expected) {
    assertEquals(expected, Suggestions.threshold(word));
  }

  @Test
  @DisplayName(
      "the nearest candidate within the word's edit budget is suggested, case-insensitively, ties going to the first alphabetically")
  void nearest() {
    assertEquals(Optional.of("torch"), Suggestions.closest("troch", List.of("jax", "torch")));
    assertEquals(Optional.of("torch"), Suggestions.closest("TORCX", List.of("mpi", "torch")));
    assertEquals(Optional.of("Torch"), Suggestions.closest("torcx", List.of("Torch")));
    assertEquals(
        Optional.of("zbcdef"),
        Suggestions.closest("abcdef", List.of("abcdxy", "zbcdef")),
        "distance 1 beats distance 2");
    assertEquals(
        Optional.of("torch"),
        Suggestions.closest("xorch", List.of("zorch", "torch")),
        "equal distance: alphabetical");
  }

  @Test
  @DisplayName("a candidate exactly at the edit budget is suggested; one edit beyond it is not")
  void budgetEdge() {
    assertEquals(Optional.of("abcde"), Suggestions.closest("abcdx", List.of("abcde")));
    assertEquals(Optional.empty(), Suggestions.closest("abcxy", List.of("abcde")));
    assertEquals(Optional.of("abcdef"), Suggestions.closest("abcdxy", List.of("abcdef")));
    assertEquals(Optional.empty(), Suggestions.closest("abcxyz", List.of("abcdef")));
    assertEquals(Optional.of("abcdefghi"), Suggestions.closest("abcdefxyz", List.of("abcdefghi")));
    assertEquals(Optional.empty(), Suggestions.closest("abcdewxyz", List.of("abcdefghi")));
  }

  @Test
  @DisplayName(
      "with no near candidate, one that contains the word or is contained in it is suggested, the first alphabetically")
  void containment() {
    assertEquals(
        Optional.of("torch"), Suggestions.closest("pytorch-nightly", List.of("jax", "torch")));
    assertEquals(Optional.of("torch"), Suggestions.closest("orc", List.of("jax", "torch")));
    assertEquals(
        Optional.of("py"), Suggestions.closest("pytorch-nightly", List.of("torch", "py", "jax")));
  }

  @Test
  @DisplayName(
      "an empty word, or one far from and unrelated to every candidate, gets no suggestion")
  void none() {
    assertEquals(Optional.empty(), Suggestions.closest("", List.of("torch", "jax")));
    assertEquals(Optional.empty(), Suggestions.closest("tensorflow", List.of("torch", "jax")));
    assertEquals(Optional.empty(), Suggestions.closest("torch", List.of()));
  }
}
