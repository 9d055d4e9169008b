package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.units.Quantities;
import java.math.BigDecimal;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 1035 labels and their closest spelling; Kubernetes quantities; the topology's world size. */
class NamesQuantitiesTest {
  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource({
    "a, true",
    "a-1, true",
    "a-, false",
    "1a, false",
    "a.b, false",
    "A, false",
    "'', false"
  })
  @DisplayName(
      "a label starts with a letter, ends with a letter or digit, holds only a-z, 0-9 and -")
  void labels(String name, boolean label) {
    assertEquals(label, Names.isLabel(name));
  }

  @Test
  @DisplayName("a label has at most 63 characters")
  void labelLength() {
    assertEquals(true, Names.isLabel("a".repeat(63)));
    assertEquals(false, Names.isLabel("a".repeat(64)));
  }

  @ParameterizedTest(name = "\"{0}\" max {1} -> {2}")
  @CsvSource({
    "My_Job.1, 40, my-job-1",
    "abcdef, 3, abc",
    "abc, 3, abc",
    "ab--cd, 3, ab",
    "--9lives, 10, lives",
    "123, 5, job",
    "a__b, 10, a-b"
  })
  @DisplayName(
      "sanitize lower-cases, turns other characters into one -, drops leading non-letters, cuts, drops trailing -")
  void sanitize(String name, int max, String expected) {
    assertEquals(expected, Names.sanitize(name, max));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
    "4, 4",
    "500m, 0.500",
    "' 2 ', 2",
    "1Ki, 1024",
    "2Gi, 2147483648",
    "1k, 1000",
    "1.5M, 1500000.0",
    "2e3, 2000",
    "1.5E2, 150",
    "5e-1, 0.5",
    "1e400, 1E+400"
  })
  @DisplayName(
      "a quantity parses to base units, with or without a suffix, and in Kubernetes' decimal exponent form")
  void parse(String text, String value) {
    assertEquals(0, new BigDecimal(value).compareTo(Quantities.parse(text).orElseThrow()), text);
  }

  @Test
  @DisplayName("text that is no quantity parses to nothing")
  void notAQuantity() {
    assertEquals(Optional.empty(), Quantities.parse("lots"));
    assertEquals(Optional.empty(), Quantities.parse("2GB"));
    assertEquals(Optional.empty(), Quantities.parse("2e"));
    assertEquals(Optional.empty(), Quantities.parse("2e1234567890"));
    assertEquals(Integer.MAX_VALUE, Quantities.wholeCpus("1e400"));
    assertEquals(Integer.MAX_VALUE, Quantities.wholeCpus("99999999999"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"32Gi, 16Gi", "3Gi, 1536Mi", "100Mi, 64Mi", "1Gi, 512Mi", "lots, 1Gi"})
  @DisplayName(
      "half of a memory quantity, in Gi when whole, else Mi and at least 64Mi; 2Gi is assumed for garbage")
  void half(String memory, String half) {
    assertEquals(half, Quantities.half(memory));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({"500m, 1", "2.5, 2", "8, 8", "lots, 1"})
  @DisplayName("whole CPUs round down and are at least 1")
  void wholeCpus(String cpu, int whole) {
    assertEquals(whole, Quantities.wholeCpus(cpu));
  }

  @Test
  @DisplayName("world size is nodes x processes per node")
  void worldSize() {
    assertEquals(6, new ResolvedJob.Topology(2, 3).worldSize());
  }
}
