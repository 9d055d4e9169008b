package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SshKeyGeneratorTest {
  private static final String COMMENT = "trainyard@demo-3f2a9c";

  @TempDir Path dir;

  @Test
  @DisplayName(
      "ssh-keygen -y derives exactly publicKeyAuthorized (minus comment) from the private key")
  void realSshKeygenDerivesOurPublicKey() throws IOException {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(1)).generate(COMMENT);
    Path key = writePrivateKey(pair);

    String derived =
        SecretTools.run(
            dir,
            Map.of(),
            "",
            List.of(
                SecretTools.system("ssh-keygen", "openssh-client").toString(),
                "-y",
                "-f",
                key.toString()));

    assertEquals(withoutComment(pair.publicKeyAuthorized()), withoutComment(derived.strip()));
    assertTrue(
        derived.strip().endsWith(" " + COMMENT), "the private key carries the comment: " + derived);
  }

  @Test
  @DisplayName("ssh-keygen -l sees a 256-bit ECDSA key with the same fingerprint in both halves")
  void realSshKeygenFingerprintsMatch() throws IOException {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(2)).generate(COMMENT);
    Path key = writePrivateKey(pair);
    Path publicKey = Files.writeString(dir.resolve("id.pub"), pair.publicKeyAuthorized() + "\n");
    String sshKeygen = SecretTools.system("ssh-keygen", "openssh-client").toString();

    String fromPrivate =
        SecretTools.run(dir, Map.of(), "", List.of(sshKeygen, "-l", "-f", key.toString()));
    String fromPublic =
        SecretTools.run(dir, Map.of(), "", List.of(sshKeygen, "-l", "-f", publicKey.toString()));

    assertTrue(fromPublic.startsWith("256 SHA256:"), fromPublic);
    assertTrue(fromPublic.strip().endsWith(COMMENT + " (ECDSA)"), fromPublic);
    assertEquals(fromPublic.split(" ")[1], fromPrivate.split(" ")[1]);
  }

  @Test
  @DisplayName("the same seed gives a byte-identical pair and another seed a different one")
  void deterministicFromSeed() {
    SshKeyPair first = new SshKeyGenerator(SecretTools.seeded(7)).generate(COMMENT);
    SshKeyPair again = new SshKeyGenerator(SecretTools.seeded(7)).generate(COMMENT);
    SshKeyPair other = new SshKeyGenerator(SecretTools.seeded(8)).generate(COMMENT);

    assertEquals(first, again);
    assertNotEquals(first.privateKeyOpenSsh(), other.privateKeyOpenSsh());
    assertNotEquals(first.publicKeyAuthorized(), other.publicKeyAuthorized());
  }

  @Test
  @DisplayName(
      "keys are OpenSSH-armored ecdsa-sha2-nistp256 with 70-column LF lines and one public line")
  void textShape() {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(3)).generate(COMMENT);
    List<String> lines = pair.privateKeyOpenSsh().lines().toList();

    assertEquals("-----BEGIN OPENSSH PRIVATE KEY-----", lines.get(0));
    assertEquals("-----END OPENSSH PRIVATE KEY-----", lines.get(lines.size() - 1));
    assertTrue(
        pair.privateKeyOpenSsh().endsWith("-----\n") && !pair.privateKeyOpenSsh().contains("\r"));
    assertTrue(lines.stream().allMatch(line -> line.length() <= 70), pair.privateKeyOpenSsh());
    assertEquals("ecdsa-sha2-nistp256", pair.keyType());
    assertTrue(
        pair.publicKeyAuthorized().matches("ecdsa-sha2-nistp256 AAAA[A-Za-z0-9+/=]+ " + COMMENT));
    assertTrue(!pair.toString().contains("PRIVATE KEY-----\n"), "toString hides the private key");
  }

  @Test
  @DisplayName("a comment with whitespace is a programming error")
  void rejectsCommentWithSpace() {
    SshKeyGenerator generator = new SshKeyGenerator(SecretTools.seeded(4));
    assertThrows(IllegalArgumentException.class, () -> generator.generate("two words"));
  }

  private Path writePrivateKey(SshKeyPair pair) throws IOException {
    Path key = Files.writeString(dir.resolve("id"), pair.privateKeyOpenSsh());
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    return key;
  }

  private static String withoutComment(String authorizedKey) {
    String[] parts = authorizedKey.split(" ");
    return parts[0] + " " + parts[1];
  }
}
