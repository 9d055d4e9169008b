package dev.trainyard.compiler.secrets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code plain} secrets policy: a plain {@code v1/Secret} with base64 {@code data}. Only for
 * platforms that explicitly allow unencrypted Secrets in Git (and the embedded local default, with
 * warning W410).
 *
 * <pre>
 * apiVersion: v1
 * data: {ssh-privatekey: LS0tLS1CRUdJTi..., ssh-publickey: ZWNkc2Etc2hh...}
 * immutable: true
 * kind: Secret
 * metadata: {annotations: {...}, labels: {...}, name: demo-3f2a9c-ssh, namespace: team-a}
 * type: kubernetes.io/ssh-auth
 * </pre>
 *
 * Values are standard base64 with padding of their UTF-8 bytes; keys sorted; no randomness.
 */
public final class PlainSecretSealer implements SecretSealer {

  @Override
  public ObjectNode seal(UnsealedSecret secret) {
    ObjectNode root = SecretNodes.object();
    root.put("apiVersion", "v1");
    ObjectNode data = root.putObject("data");
    secret.data().forEach((key, value) -> data.put(key, base64(value)));
    if (secret.immutable()) {
      root.put("immutable", true);
    }
    root.put("kind", "Secret");
    root.set("metadata", SecretNodes.metadata(secret));
    root.put("type", secret.type());
    return root;
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }
}
