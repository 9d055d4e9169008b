package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.transport.CredentialItem;
import org.eclipse.jgit.transport.URIish;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitCredentialsTest {
  @Test
  @DisplayName(
      "a token in TRAINYARD_GITOPS_TOKEN is the password, with x-access-token or TRAINYARD_GITOPS_USERNAME as user")
  void token() throws Exception {
    CredentialItem.Username user = new CredentialItem.Username();
    CredentialItem.Password password = new CredentialItem.Password();
    assertTrue(
        new GitCredentials(Map.of("TRAINYARD_GITOPS_TOKEN", " t0ken\n"))
            .get(new URIish("https://h/x.git"), user, password));
    assertEquals("x-access-token", user.getValue());
    assertArrayEquals("t0ken".toCharArray(), password.getValue());
    new GitCredentials(Map.of("TRAINYARD_GITOPS_TOKEN", "t", "TRAINYARD_GITOPS_USERNAME", "oauth2"))
        .get(new URIish("https://h/x.git"), user, password);
    assertEquals("oauth2", user.getValue());
  }

  @Test
  @DisplayName(
      "git credential fill output gives user and password; missing or empty ones give nothing")
  void helperOutput() {
    assertArrayEquals(
        new String[] {"ada", "pw=1"},
        GitCredentials.parse("protocol=https\nhost=h\nusername=ada\npassword=pw=1\n")
            .orElseThrow());
    assertEquals(Optional.empty(), GitCredentials.parse("username=ada\n"));
    assertEquals(Optional.empty(), GitCredentials.parse("username=ada\npassword=\n"));
  }

  @Test
  @DisplayName(
      "git credential fill runs in PWD's folder, so a helper in that repository's own config answers; elsewhere (or PWD not an absolute folder) it does not")
  void helperInTheCallsFolder(@TempDir Path temp) throws Exception {
    Path repo = Files.createDirectories(temp.resolve("source"));
    GitCli.git(repo, "init", "-q");
    GitCli.git(
        repo,
        "config",
        "credential.helper",
        "!f() { echo username=local; echo password=s3cret; }; f");
    Map<String, String> env = new HashMap<>();
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("PWD", repo.toString());
    CredentialItem.Username user = new CredentialItem.Username();
    CredentialItem.Password password = new CredentialItem.Password();
    assertTrue(new GitCredentials(env).get(new URIish("https://h/x.git"), user, password));
    assertEquals("local", user.getValue());
    assertArrayEquals("s3cret".toCharArray(), password.getValue());
    env.put("PWD", temp.toString());
    assertFalse(new GitCredentials(env).get(new URIish("https://h/x.git"), user, password));
    assertEquals(Optional.of(repo), GitCredentials.folder(Map.of("PWD", repo.toString())));
    assertEquals(Optional.empty(), GitCredentials.folder(Map.of("PWD", "relative")));
    assertEquals(Optional.empty(), GitCredentials.folder(Map.of("PWD", temp + "/none")));
    assertEquals(Optional.empty(), GitCredentials.folder(Map.of("PWD", "\0bad\u0000")));
    assertEquals(Optional.empty(), GitCredentials.folder(Map.of()));
  }

  @Test
  @DisplayName("never interactive, and only user and password items are supported")
  void items() {
    GitCredentials c = new GitCredentials(Map.of());
    assertFalse(c.isInteractive());
    assertTrue(c.supports(new CredentialItem.Username(), new CredentialItem.Password()));
    assertFalse(c.supports(new CredentialItem.YesNoType("trust?")));
  }
}
