package dev.trainyard.compiler.render;

import java.util.regex.Pattern;

/**
 * One POSIX shell word for a value a user chose (a folder name, a working directory): as written
 * when it is made of characters no shell reads specially, else single-quoted with each {@code '} as
 * {@code '\''} (POSIX.1-2017 Shell Command Language §2.2.2: nothing inside single quotes is
 * special). Used in the pods' scripts and in commands Trainyard prints for a user to paste.
 */
public final class ShellWords {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private ShellWords() {}

  /** {@code value} as one shell word, e.g. {@code train.yaml}, {@code 'my dir/train.yaml'}. */
  public static String quote(String value) {
    if (!value.isEmpty() && PLAIN.matcher(value).matches()) {
      return value;
    }
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
