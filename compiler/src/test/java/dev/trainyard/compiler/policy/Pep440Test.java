package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * PEP 440 versions and specifiers ({@link Pep440Version}, {@link Pep440Specifiers}); the expected
 * answers are the examples and rules of the PEP's "Version specifiers" section, as pip's packaging
 * library also answers them.
 */
class Pep440Test {
  private static Pep440Version v(String text) {
    return Pep440Version.parse(text)
        .orElseThrow(() -> new AssertionError("not a version: " + text));
  }

  @ParameterizedTest(name = "{0} < {1}")
  @CsvSource({
    "1.0.dev0, 1.0a1",
    "1.0a1, 1.0a2.dev1",
    "1.0a2.dev1, 1.0a2",
    "1.0a2, 1.0b1",
    "1.0b1, 1.0rc1",
    "1.0rc1, 1.0",
    "1.0, 1.0.post0.dev1",
    "1.0.post0.dev1, 1.0.post0",
    "1.0.post0, 1.0.post1",
    "1.0.post1, 1.1.dev0",
    "1.0, 1.0+abc",
    "1.0+abc, 1.0+abc.1",
    "1.0+abc.5, 1.0+abc.10",
    "1.0+zzz, 1.0+1",
    "1.0+1, 1.0+2",
    "1.9, 1.10",
    "2.13.0, 2.13.1",
    "1!0.1, 2!0.0",
    "5.0, 1!0.1",
    "1.0.dev1, 1.0.dev2",
    "1.0rc1.post1, 1.0",
    "1.0a1.post1.dev1, 1.0a1.post1",
    "1.1, 1.1.0.1",
  })
  void ordering(String lower, String higher) {
    assertTrue(v(lower).compareTo(v(higher)) < 0, lower + " < " + higher);
    assertTrue(v(higher).compareTo(v(lower)) > 0, higher + " > " + lower);
  }

  @ParameterizedTest(name = "{0} == {1}, normalized {2}")
  @CsvSource({
    "1.0, 1.0.0, 1.0",
    "v1.0, 1, 1.0",
    "1.0alpha1, 1.0a1, 1.0a1",
    "1.0-beta.2, 1.0b2, 1.0b2",
    "1.0c1, 1.0rc1, 1.0rc1",
    "1.0pre1, 1.0rc1, 1.0rc1",
    "1.0preview1, 1.0rc1, 1.0rc1",
    "1.0-1, 1.0.post1, 1.0.post1",
    "1.0rev2, 1.0.post2, 1.0.post2",
    "1.0r, 1.0.post0, 1.0.post0",
    "1.0.dev, 1.0.dev0, 1.0.dev0",
    "1.0a, 1.0a0, 1.0a0",
    "0!1.0, 1.0, 1.0",
    "1.0+Ubuntu-1, 1.0+ubuntu.1, 1.0+ubuntu.1",
    "1.0+cu_130, 1.0+cu.130, 1.0+cu.130",
    "2!1.0RC1, 2!1.0rc1, 2!1.0rc1",
    "1.0_post_3.dev_4, 1.0.post3.dev4, 1.0.post3.dev4",
  })
  void spellings(String written, String same, String normalized) {
    assertEquals(0, v(written).compareTo(v(same)));
    assertEquals(v(written), v(same));
    assertEquals(v(written).hashCode(), v(same).hashCode());
    assertEquals(normalized, v(written).toString());
  }

  @Test
  @DisplayName("not versions: words, empty, a trailing dot, numbers over 18 digits")
  void invalid() {
    for (String s :
        List.of(
            "",
            "abc",
            "1.",
            "1..0",
            "1.0+",
            "1.0 a",
            "(CUDA)",
            "1234567890123456789",
            "1.0+1234567890123456789",
            "1.0a1234567890123456789")) {
      assertEquals(Optional.empty(), Pep440Version.parse(s), s);
    }
    assertEquals("123456789012345678", v("123456789012345678").toString());
  }

  @Test
  @DisplayName("what a version is: pre, post, dev, local, base and public forms")
  void properties() {
    Pep440Version x = v("1!2.0rc1.post3.dev4+cu130");
    assertTrue(x.isPreRelease());
    assertTrue(x.isPostRelease());
    assertTrue(x.isDevRelease());
    assertTrue(x.hasLocal());
    assertEquals("1!2.0", x.baseVersion().toString());
    assertEquals("1!2.0rc1.post3.dev4", x.publicVersion().toString());
    assertEquals(List.of(2L, 0L), x.release());
    assertEquals(1, x.epoch());
    assertFalse(v("2.0").isPreRelease());
    assertTrue(v("2.0.dev1").isPreRelease());
    assertFalse(v("2.0").isPostRelease());
    assertFalse(v("2.0").isDevRelease());
    assertFalse(v("2.0").hasLocal());
    assertNotEquals(v("1.0"), "1.0");
    assertNotEquals(v("1.0").hashCode(), v("1.0.1").hashCode());
  }

  @ParameterizedTest(name = "{1} admits {0}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "2.13.0 | <2.10 | false",
        "2.9.1 | <2.10 | true",
        "2.10.0 | <2.10 | false",
        "2.10.0rc1 | <2.10 | false",
        "2.10.0rc1 | <2.10rc2 | true",
        "2.9.0rc1 | <2.10 | true",
        "2.13.0 | <=2.13 | true",
        "2.13.1 | <=2.13 | false",
        "2.13.0+cu130 | <=2.13 | true",
        "2.13.0 | >=2.13.0 | true",
        "2.12.9 | >=2.13.0 | false",
        "2.13.0 | >2.13 | false",
        "2.13.1 | >2.13 | true",
        "2.13.post1 | >2.13 | false",
        "2.13.post2 | >2.13.post1 | true",
        "2.13.0+cpu | >2.13 | false",
        "2.13.0 | ==2.13 | true",
        "2.13.0+cu130 | ==2.13.0 | true",
        "2.13.0 | ==2.13.0+cu130 | false",
        "2.13.0+cu130 | ==2.13.0+cu130 | true",
        "2.13.0 | !=2.13.0 | false",
        "2.13.1 | !=2.13.0 | true",
        "2.13.0 | ==2.13.* | true",
        "2.13 | ==2.13.0.* | true",
        "2.1.0 | ==2.1.* | true",
        "2.10.0 | ==2.1.* | false",
        "2.13.0rc1 | ==2.13.* | true",
        "1!2.13.0 | ==2.13.* | false",
        "2.13.0 | !=2.13.* | false",
        "2.14.0 | !=2.13.* | true",
        "1.0rc1 | ==1.0rc1.* | true",
        "1.0rc2 | ==1.0rc1.* | false",
        "1.0.1rc1 | ==1.0rc1.* | false",
        "1.0.post1 | ==1.0.post1.* | true",
        "1.0.post2 | ==1.0.post1.* | false",
        "1.0 | ==1.0.post1.* | false",
        "2.13.0 | ~=2.13 | true",
        "2.14.0 | ~=2.13 | true",
        "3.0 | ~=2.13 | false",
        "2.13.5 | ~=2.13.1 | true",
        "2.14.0 | ~=2.13.1 | false",
        "2.13.0 | ~=2.13.1 | false",
        "1!2.14.0 | ~=1!2.13 | true",
        "2.14.0 | ~=1!2.13 | false",
        "2.13.0 | ===2.13.0 | true",
        "2.13 | ===2.13.0 | false",
        "2.13.0 | '>=2.1, <3,!=2.12.*' | true",
        "2.12.3 | '>=2.1, <3,!=2.12.*' | false",
        "2.13.0 | '' | true",
      })
  void admits(String version, String spec, boolean expected) {
    Pep440Specifiers s = Pep440Specifiers.parse(spec).orElseThrow();
    assertEquals(expected, s.admits(v(version)), spec + " on " + version);
    assertEquals(spec.strip(), s.toString());
  }

  @Test
  @DisplayName("malformed specifier sets are refused, not read as no limit")
  void malformed() {
    for (String s :
        List.of(
            "2.1",
            "=>2.1",
            "<2.1.*",
            "~=2",
            "~=2.*",
            "==2.1.dev1.*",
            "==2.1+x.*",
            "<=2.1+cpu",
            ">=2.1,",
            ">=",
            "== abc",
            "=2")) {
      assertEquals(Optional.empty(), Pep440Specifiers.parse(s), s);
    }
    assertTrue(Pep440Specifiers.parse("!=2.1+cpu").isPresent());
    assertTrue(Pep440Specifiers.parse("== 2.1 ").isPresent());
  }
}
