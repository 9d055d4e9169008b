package dev.trainyard.compiler.secrets;

import java.util.Objects;

/**
 * An SSH key pair as it goes into the MPI SSH Secret ({@code kubernetes.io/ssh-auth}).
 *
 * <pre>
 * privateKeyOpenSsh:   the openssh-key-v1 armored text, base64 body "b3BlbnNzaC1rZXktdjEA..." (OpenSSH PROTOCOL.key)
 * publicKeyAuthorized: "ecdsa-sha2-nistp256 AAAAE2VjZHNh... trainyard@demo-3f2a9c"
 * </pre>
 *
 * @param privateKeyOpenSsh the unencrypted private key in OpenSSH's {@code openssh-key-v1} format,
 *     70-column base64 lines, LF line ends, ending in a newline; the Secret key {@code
 *     ssh-privatekey}
 * @param publicKeyAuthorized one {@code authorized_keys} line {@code <type> <base64> <comment>}
 *     without a trailing newline; the Secret key {@code ssh-publickey}
 */
public record SshKeyPair(String privateKeyOpenSsh, String publicKeyAuthorized) {

  public SshKeyPair {
    Objects.requireNonNull(privateKeyOpenSsh, "privateKeyOpenSsh");
    Objects.requireNonNull(publicKeyAuthorized, "publicKeyAuthorized");
  }

  /** The key type of the public key, e.g. {@code ecdsa-sha2-nistp256}. */
  public String keyType() {
    return publicKeyAuthorized.split(" ", 2)[0];
  }

  /** Hides the private key so that a logged or printed pair never leaks it. */
  @Override
  public String toString() {
    return "SshKeyPair[" + publicKeyAuthorized + ", private key hidden]";
  }
}
