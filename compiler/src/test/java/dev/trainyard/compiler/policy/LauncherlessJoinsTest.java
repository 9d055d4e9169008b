package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Whether a script reads its node's place in the group: the word check in front of the pattern
 * answers as the pattern alone does.
 */
class LauncherlessJoinsTest {
  @Test
  @DisplayName(
      "a read of MASTER_ADDR, NODE_RANK, NNODES, PET_*, GROUP_RANK or Lightning joins; setting them, or none of them, does not")
  void joins() {
    for (String reads :
        List.of(
            "addr = os.environ['MASTER_ADDR']",
            "rank = int(os.environ.get('NODE_RANK', 0))",
            "n = os.getenv('NNODES')",
            "os.environ['PET_NNODES']",
            "g = os.environ['GROUP_RANK']",
            "import  lightning as L",
            "from lightning import Trainer",
            "import pytorch_lightning",
            "os.environ.setdefault('MASTER_ADDR', 'localhost')",
            "os.environ['MASTER_PORT'] = '1'\nprint(os.environ['MASTER_ADDR'])")) {
      assertTrue(LauncherlessRun.joins(reads), reads);
    }
    for (String alone :
        List.of(
            "",
            "import torch\nmodel.fit()",
            "os.environ['MASTER_ADDR'] = 'localhost'",
            "os.putenv('NODE_RANK', '0')",
            "os.environ[\"NNODES\"]= '1'  # MASTER_ADDR",
            "PET_x = 1",
            "import light")) {
      assertFalse(LauncherlessRun.joins(alone), alone);
    }
  }

  @Test
  @DisplayName(
      "for 20,000 random scripts of the words, assignments and separators, joins() answers as the pattern over the script without its assignments")
  void asThePattern() {
    String[] parts = {
      "MASTER_ADDR",
      "NODE_RANK",
      "NNODES",
      "PET_",
      "PET_N",
      "GROUP_RANK",
      "lightning",
      "import",
      "from",
      "pytorch_lightning",
      "os.environ['X'] = 1",
      "environ[\"MASTER_ADDR\"]=v",
      "putenv('NODE_RANK', 1)",
      "environ",
      "putenv",
      " ",
      "\n",
      "=",
      "==",
      "x",
      "['A']",
      "MASTER"
    };
    Random random = new Random(24);
    int joined = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = random.nextInt(8); n >= 0; n--) {
        s.append(parts[random.nextInt(parts.length)]);
      }
      String script = s.toString();
      boolean pattern =
          LauncherlessRun.JOINS
              .matcher(LauncherlessRun.ASSIGNS.matcher(script).replaceAll(""))
              .find();
      assertEquals(pattern, LauncherlessRun.joins(script), script);
      joined += pattern ? 1 : 0;
    }
    assertTrue(joined > 2_000 && joined < 18_000, joined + " of 20,000 join");
  }

  @Test
  @DisplayName(
      "for 20,000 random scripts of quotes, escapes, #, line breaks and letters, withoutComments() answers as a char-by-char copy that skips comments")
  void withoutCommentsAsCharByChar() {
    String alphabet = "#'\"\\\nab ";
    Random random = new Random(24);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder s = new StringBuilder();
      for (int n = random.nextInt(24); n >= 0; n--) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String script = s.toString();
      assertEquals(charByChar(script), LauncherlessRun.withoutComments(script), script);
    }
  }

  /** Python's comment and string rules, one character at a time (the reference). */
  private static String charByChar(String source) {
    StringBuilder out = new StringBuilder();
    int n = source.length();
    int i = 0;
    while (i < n) {
      char ch = source.charAt(i);
      if (ch == '#') {
        while (i < n && source.charAt(i) != '\n') {
          i++;
        }
      } else if (ch == '\'' || ch == '"') {
        String quote =
            source.startsWith(String.valueOf(ch).repeat(3), i)
                ? String.valueOf(ch).repeat(3)
                : String.valueOf(ch);
        int end = i + quote.length();
        while (end < n && !source.startsWith(quote, end)) {
          if (source.charAt(end) == '\n' && quote.length() == 1) {
            break;
          }
          end += source.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(n, source.startsWith(quote, end) ? end + quote.length() : end);
        for (int k = i; k < end; k++) {
          out.append(source.charAt(k));
        }
        i = end;
      } else {
        out.append(ch);
        i++;
      }
    }
    return out.toString();
  }

  @Test
  @DisplayName(
      "the word checks say false exactly for texts without their words, and a script without # is returned as it is")
  void wordChecks() {
    assertTrue(LauncherlessRun.mayJoin("x = os.environ['NNODES']"));
    assertFalse(LauncherlessRun.mayJoin("import torch"));
    assertTrue(LauncherlessRun.maySet("os.environ"));
    assertTrue(LauncherlessRun.maySet("os.putenv"));
    assertFalse(LauncherlessRun.maySet("os.getenv('X')"));
    assertTrue(LauncherlessRun.mayImportMpiFramework("import horovod.torch as hvd"));
    assertTrue(LauncherlessRun.mayImportMpiFramework("import mlx.core as mx"));
    assertFalse(LauncherlessRun.mayImportMpiFramework("import torch"));
    assertTrue(LauncherlessRun.maySpawn("mp.spawn(main)"));
    assertTrue(LauncherlessRun.maySpawn("start_processes(fn)"));
    assertFalse(LauncherlessRun.maySpawn("main()"));
    String plain = "print('no comment here')\n";
    assertSame(plain, LauncherlessRun.withoutComments(plain));
  }
}
