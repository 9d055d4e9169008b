package dev.trainyard.controller;

import dev.trainyard.compiler.render.TrainerStatusPush;
import dev.trainyard.controller.progress.TokenBucket;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Who sent a progress push: the API server's TokenReview of the bearer token for the audience
 * {@link TrainerStatusPush#AUDIENCE}, as KEP-2779 ("Security considerations") prescribes. A pod's
 * projected token names its pod in the review's user extra info ({@code
 * authentication.kubernetes.io/pod-name} and {@code pod-uid}, set for tokens bound to a pod: the
 * kubelet binds every projected token to its pod) and its namespace in the user name ({@code
 * system:serviceaccount:NAMESPACE:ACCOUNT}).
 *
 * <p>Results are cached for {@link #CACHE_FOR} by the token's SHA-256 (never the token), at most
 * {@link #CACHE_SIZE} entries, so a run's pods pushing every few seconds cost one review a minute
 * each, as the KEP asks; reviews of tokens not in the cache are limited to {@link #REVIEWS_BURST}
 * at once and {@link #REVIEWS_PER_SECOND} a second for the whole controller, so a flood of made-up
 * tokens cannot load the API server ({@link Identity#BUSY}). Needs {@code create tokenreviews}
 * ({@code controller/deploy/rbac.yaml}).
 */
final class PodTokenReview implements Function<String, PodTokenReview.Identity> {

  static final Duration CACHE_FOR = Duration.ofSeconds(60);
  static final int CACHE_SIZE = 4096;
  static final int REVIEWS_BURST = 50;
  static final double REVIEWS_PER_SECOND = 20;
  static final String POD_NAME = "authentication.kubernetes.io/pod-name";
  static final String POD_UID = "authentication.kubernetes.io/pod-uid";
  private static final String ACCOUNT_PREFIX = "system:serviceaccount:";

  /**
   * What a token is: {@link #INVALID} (the API server does not authenticate it for the audience),
   * {@link #UNAVAILABLE} (the review failed), {@link #BUSY} (too many reviews now), or a user with
   * its namespace and, for a pod's token, its pod's name and uid ("" when not bound to a pod).
   */
  record Identity(Kind kind, String namespace, String pod, String uid) {
    enum Kind {
      POD_USER,
      INVALID,
      UNAVAILABLE,
      BUSY
    }

    static final Identity INVALID = new Identity(Kind.INVALID, "", "", "");
    static final Identity UNAVAILABLE = new Identity(Kind.UNAVAILABLE, "", "", "");
    static final Identity BUSY = new Identity(Kind.BUSY, "", "", "");
  }

  private record Cached(Identity identity, long until) {}

  private final Function<TokenReview, TokenReview> api;
  private final LongSupplier nanoTime;
  private final TokenBucket reviews;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private final int cacheSize;

  /** Reviews with {@code client}. */
  PodTokenReview(KubernetesClient client) {
    this(r -> client.authentication().v1().tokenReviews().create(r), System::nanoTime);
  }

  /** Reviews with {@code api} (the API server's answer to a TokenReview), on {@code nanoTime}. */
  PodTokenReview(Function<TokenReview, TokenReview> api, LongSupplier nanoTime) {
    this(api, nanoTime, CACHE_SIZE);
  }

  /** As above, keeping at most {@code cacheSize} answers (the cache is emptied when full). */
  PodTokenReview(Function<TokenReview, TokenReview> api, LongSupplier nanoTime, int cacheSize) {
    this.cacheSize = cacheSize;
    this.api = api;
    this.nanoTime = nanoTime;
    this.reviews = new TokenBucket(REVIEWS_BURST, REVIEWS_PER_SECOND, nanoTime);
  }

  /** Who {@code token} is (see {@link Identity}); never throws, never logs the token. */
  @Override
  public Identity apply(String token) {
    String digest = sha256(token);
    long now = nanoTime.getAsLong();
    Cached hit = cache.get(digest);
    if (hit != null && now - hit.until() < 0) {
      return hit.identity();
    }
    if (!reviews.tryTake()) {
      return Identity.BUSY;
    }
    Identity identity = review(token);
    if (identity.kind() != Identity.Kind.UNAVAILABLE) {
      if (cache.size() >= cacheSize) {
        cache.clear();
      }
      cache.put(digest, new Cached(identity, now + CACHE_FOR.toNanos()));
    }
    return identity;
  }

  private Identity review(String token) {
    TokenReview answer;
    try {
      answer =
          api.apply(
              new TokenReviewBuilder()
                  .withNewSpec()
                  .withToken(token)
                  .withAudiences(TrainerStatusPush.AUDIENCE)
                  .endSpec()
                  .build());
    } catch (KubernetesClientException e) {
      return Identity.UNAVAILABLE;
    }
    return identity(answer);
  }

  /** The identity a TokenReview's answer gives. */
  static Identity identity(TokenReview answer) {
    if (answer == null
        || answer.getStatus() == null
        || !Boolean.TRUE.equals(answer.getStatus().getAuthenticated())
        || answer.getStatus().getAudiences() == null
        || !answer.getStatus().getAudiences().contains(TrainerStatusPush.AUDIENCE)
        || answer.getStatus().getUser() == null) {
      return Identity.INVALID;
    }
    UserInfo user = answer.getStatus().getUser();
    String name = user.getUsername() == null ? "" : user.getUsername();
    String namespace = "";
    if (name.startsWith(ACCOUNT_PREFIX)) {
      String rest = name.substring(ACCOUNT_PREFIX.length());
      namespace = rest.contains(":") ? rest.substring(0, rest.indexOf(':')) : "";
    }
    Map<String, List<String>> extra = user.getExtra() == null ? Map.of() : user.getExtra();
    return new Identity(
        Identity.Kind.POD_USER, namespace, first(extra, POD_NAME), first(extra, POD_UID));
  }

  private static String first(Map<String, List<String>> extra, String key) {
    List<String> values = extra.get(key);
    return values == null || values.isEmpty() ? "" : Objects.toString(values.get(0), "");
  }

  private static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
