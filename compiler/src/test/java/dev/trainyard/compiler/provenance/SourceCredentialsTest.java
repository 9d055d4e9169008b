package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens in a remote URL (GitLab CI sets origin to https://gitlab-ci-token:TOKEN@…) never reach the
 * GitOps repo.
 */
class SourceCredentialsTest {
  @TempDir Path temp;

  @Test
  @DisplayName("credentials in the source repo URL are removed from every file, with a warning")
  void credentialsRemoved() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    CompileRequest request =
        CompileRequest.builder(p.trainYaml())
            .displayPath("train.yaml")
            .sourceRepo("https://gitlab-ci-token:glpat-s3cret@gitlab.example.com/ml/llm.git")
            .build();
    CompileResult result = new Compiler(SshSecretProvider.system()).compile(request);
    assertEquals(1, TrainProject.withCode(result, DiagnosticCode.CREDENTIALS_IN_URL).size());
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    TrainProject.tree(result)
        .files()
        .values()
        .forEach(text -> assertFalse(text.contains("s3cret"), text));
    assertTrue(
        TrainProject.tree(result).files().values().stream()
            .anyMatch(t -> t.contains("https://gitlab.example.com/ml/llm.git")));
  }

  @Test
  @DisplayName(
      "SSH remotes become their HTTPS form (pods have no SSH key), and queries and fragments are dropped")
  void sshAndQueries() {
    assertEquals(
        "https://github.com/acme/x.git",
        new SourceInfo("git@github.com:acme/x.git", "a", "t").overHttps().repoUrl());
    assertEquals(
        "https://gitlab.example.com/ml/x.git",
        new SourceInfo("ssh://git@gitlab.example.com:2222/ml/x.git", "a", "t")
            .overHttps()
            .repoUrl());
    assertTrue(new SourceInfo("git@github.com:acme/x.git", "a", "t").isSsh());
    assertFalse(new SourceInfo("https://github.com/acme/x.git", "a", "t").isSsh());
    assertEquals(
        "https://github.com/acme/x.git",
        new SourceInfo("https://github.com/acme/x.git?token=abc#frag", "a", "t")
            .withoutCredentials()
            .repoUrl());
  }

  @Test
  @DisplayName("scp-style and credential-free URLs keep their credentials check quiet")
  void othersUntouched() {
    assertFalse(new SourceInfo("git@github.com:acme/x.git", "a", "t").hasCredentials());
    assertFalse(new SourceInfo("https://github.com/acme/x.git", "a", "t").hasCredentials());
    assertEquals(
        "https://github.com/acme/x.git",
        new SourceInfo("https://u:p@github.com/acme/x.git", "a", "t")
            .withoutCredentials()
            .repoUrl());
  }

  @Test
  @DisplayName(
      "an SSH remote's password and any remote's query are removed before the URL is rewritten, printed or written")
  void sshSecretsRemoved() {
    SourceInfo ssh =
        new SourceInfo("ssh://deploy:glpat-TOPSECRET99@gitlab.example/acme/sec.git", "a", "t");
    assertTrue(ssh.hasCredentials());
    assertEquals("ssh://deploy@gitlab.example/acme/sec.git", ssh.withoutCredentials().repoUrl());
    assertEquals(
        "https://gitlab.example/acme/sec.git", ssh.withoutCredentials().overHttps().repoUrl());
    assertEquals(
        "git@github.com:acme/sec.git",
        new SourceInfo("git@github.com:acme/sec.git?token=abc123", "a", "t")
            .withoutCredentials()
            .repoUrl());
    assertEquals(
        "ssh://git@h:2222/x.git",
        new SourceInfo("ssh://git@h:2222/x.git#f", "a", "t").withoutCredentials().repoUrl());
    assertFalse(
        new SourceInfo("ssh://git@h:2222/x.git", "a", "t").hasCredentials(),
        "a port is no password");
    assertEquals(
        "deploy@gitlab.example:acme/sec.git",
        new SourceInfo("deploy:TOPSECRET@gitlab.example:acme/sec.git", "a", "t")
            .withoutCredentials()
            .repoUrl());
    assertEquals(
        "https://…@github.com", GitSourceInspector.shown("https://u:TOPSECRET@github.com"));
    assertEquals(
        "u:…@github.com/acme/sec.git",
        GitSourceInspector.shown("u:TOPSECRET@github.com/acme/sec.git"));
    assertEquals(
        "ssh://deploy:…@h/x.git", GitSourceInspector.shown("ssh://deploy:TOPSECRET@h/x.git"));
    assertEquals("git@github.com:", GitSourceInspector.shown("git@github.com:"));
    assertEquals(
        "https://github.com/x.git?…",
        GitSourceInspector.shown("https://github.com/x.git?token=TOPSECRET"));
    assertEquals("https://github.com/x.git", GitSourceInspector.shown("https://github.com/x.git"));
  }

  @Test
  @DisplayName(
      "compile with an SSH --source-repo holding a password or a token query: no diagnostic, name or file shows either")
  void sshSecretsNeverPrinted() {
    for (String repo :
        new String[] {
          "ssh://deploy:glpat-TOPSECRET99@gitlab.example/acme/sec.git",
          "git@github.com:acme/sec.git?token=TOPSECRET99"
        }) {
      TrainProject p =
          TrainProject.create(
              temp.resolve(Integer.toHexString(repo.hashCode())), "run: torchrun train.py\n");
      CompileRequest request =
          CompileRequest.builder(p.trainYaml()).displayPath("train.yaml").sourceRepo(repo).build();
      CompileResult result = new Compiler(SshSecretProvider.system()).compile(request);
      assertFalse(result.hasErrors(), result.diagnostics().toString());
      assertEquals(
          1,
          TrainProject.withCode(result, DiagnosticCode.CREDENTIALS_IN_URL).size(),
          result.diagnostics().toString());
      assertEquals(
          1,
          TrainProject.withCode(result, DiagnosticCode.SSH_URL_REWRITTEN).size(),
          result.diagnostics().toString());
      result
          .diagnostics()
          .forEach(
              d -> assertFalse((d.message() + d.hint()).contains("TOPSECRET99"), d.toString()));
      TrainProject.tree(result)
          .files()
          .forEach(
              (path, text) -> {
                assertFalse(path.contains("TOPSECRET99") || path.contains("token"), path);
                assertFalse(text.contains("TOPSECRET99"), text);
              });
    }
  }
}
