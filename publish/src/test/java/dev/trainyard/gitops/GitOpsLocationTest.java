package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitOpsLocationTest {
  @TempDir Path temp;

  @Test
  @DisplayName("an https URL is kept; what is shown has its credentials removed")
  void https() {
    GitOpsLocation l =
        GitOpsLocation.parse("https://bot:ghp_s3cret@github.com/acme/gitops.git", Path.of(""));
    assertEquals("https://bot:ghp_s3cret@github.com/acme/gitops.git", l.url());
    assertEquals("https://github.com/acme/gitops.git", l.shown());
    assertEquals(Optional.empty(), l.localPath());
  }

  @Test
  @DisplayName(
      "a relative path to a bare repository becomes a file:// URL resolved against the working folder")
  void path() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitOpsLocation l = GitOpsLocation.parse("ops.git", temp);
    assertEquals(bare.toUri().toString(), l.url());
    assertEquals(Optional.of(bare), l.localPath());
    assertEquals(l, GitOpsLocation.parse(bare.toUri().toString(), Path.of("/")));
  }

  @Test
  @DisplayName("a non-bare checkout is a repository too")
  void checkout() throws Exception {
    Files.createDirectories(temp.resolve("work"));
    GitCli.git(temp.resolve("work"), "init", "-q");
    assertTrue(GitOpsLocation.parse("work", temp).url().startsWith("file:"));
  }

  @Test
  @DisplayName(
      "empty values, missing folders, files, folders without git, SSH, other schemes and URLs without a path are usage errors")
  void refused() throws Exception {
    Files.createDirectories(temp.resolve("plain"));
    Files.writeString(temp.resolve("a-file"), "x");
    assertEquals(
        "--gitops \"a-file\" is a file, not a folder: give the GitOps repository's folder or URL",
        message("a-file"));
    assertEquals(
        "--gitops is empty: give the GitOps repository's URL or path (or set TRAINYARD_GITOPS)",
        message(" "));
    assertTrue(
        message("nowhere").startsWith("--gitops \"nowhere\": no such folder "), message("nowhere"));
    assertTrue(
        message("plain")
            .endsWith(
                "is not a git repository (create one with `git init --bare -b main`: submit pushes"
                    + " main unless --branch says otherwise)"),
        message("plain"));
    assertTrue(message("git@github.com:acme/gitops.git").contains("SSH URLs are not supported"));
    assertTrue(
        message("ssh://git@github.com/acme/gitops.git").contains("SSH URLs are not supported"));
    assertEquals(
        "--gitops \"ftp://host/x\": scheme ftp:// is not supported (use https, http, file, or a path)",
        message("ftp://host/x"));
    assertEquals(
        "--gitops \"https://\" is not a valid URL: Expected authority", message("https://"));
    assertEquals(
        "--gitops \"https://github.com/\" has no host or no repository path",
        message("https://tok@github.com/"));
    assertEquals(
        "--gitops \"https://127.0.0.1:99999/x.git\": port 99999 is out of range (1-65535)",
        message("https://u:SECRET@127.0.0.1:99999/x.git"));
  }

  private String message(String value) {
    return assertThrows(IllegalArgumentException.class, () -> GitOpsLocation.parse(value, temp))
        .getMessage();
  }
}
