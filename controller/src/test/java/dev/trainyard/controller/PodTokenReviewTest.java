package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.render.TrainerStatusPush;
import dev.trainyard.controller.PodTokenReview.Identity;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * TokenReviews on the real API server (service-account signing on, as in a cluster): a token the
 * API server minted for a pod, bound to it, for the progress audience, is that pod's; another
 * audience, a made-up token and an API error are not; answers are cached and new reviews limited.
 */
class PodTokenReviewTest {

  static final String ACCOUNT = "pusher";

  /** A pod of run {@code run} running as {@link #ACCOUNT}; never scheduled. */
  static Pod pod(KubernetesClient client, String ns, String name, String run) {
    if (client.serviceAccounts().inNamespace(ns).withName(ACCOUNT).get() == null) {
      client
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(ACCOUNT)
                  .withNamespace(ns)
                  .endMetadata()
                  .build())
          .create();
    }
    return client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .addToLabels(Snapshots.JOBSET_NAME, run)
                .endMetadata()
                .withNewSpec()
                .withServiceAccountName(ACCOUNT)
                .addNewContainer()
                .withName("node")
                .withImage("busybox:1.37")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** What the kubelet mounts: a token for {@code audience} bound to {@code pod}, 10 minutes. */
  static String token(KubernetesClient client, Pod pod, String audience) {
    return client
        .serviceAccounts()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(ACCOUNT)
        .tokenRequest(
            new TokenRequestBuilder()
                .withNewSpec()
                .withAudiences(audience)
                .withExpirationSeconds(600L)
                .withNewBoundObjectRef()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .endBoundObjectRef()
                .endSpec()
                .build())
        .getStatus()
        .getToken();
  }

  @Test
  @DisplayName(
      "a pod's bound projected token is that pod's; another audience or a made-up token is not")
  void identities() {
    KubernetesClient client = LiveApiServer.client();
    String ns = LiveApiServer.namespace("push-review");
    Pod pod = pod(client, ns, "run-a-node-0-0-abc", "run-a");
    PodTokenReview review = new PodTokenReview(client);
    assertEquals(
        new Identity(Identity.Kind.POD_USER, ns, "run-a-node-0-0-abc", pod.getMetadata().getUid()),
        review.apply(token(client, pod, TrainerStatusPush.AUDIENCE)));
    assertEquals(
        Identity.INVALID, review.apply(token(client, pod, "https://kubernetes.default.svc")));
    assertEquals(Identity.INVALID, review.apply("not-a-token"));
  }

  @Test
  @DisplayName("answers are cached by token for 60 s; API errors are not cached")
  void cache() {
    KubernetesClient client = LiveApiServer.client();
    String ns = LiveApiServer.namespace("push-cache");
    Pod pod = pod(client, ns, "run-c-node-0-0-abc", "run-c");
    String token = token(client, pod, TrainerStatusPush.AUDIENCE);
    AtomicInteger calls = new AtomicInteger();
    AtomicLong nanos = new AtomicLong();
    Function<TokenReview, TokenReview> api =
        r -> {
          calls.incrementAndGet();
          return client.authentication().v1().tokenReviews().create(r);
        };
    PodTokenReview review = new PodTokenReview(api, nanos::get);
    Identity first = review.apply(token);
    assertEquals(Identity.Kind.POD_USER, first.kind());
    nanos.addAndGet(PodTokenReview.CACHE_FOR.toNanos() - 1);
    assertEquals(first, review.apply(token));
    assertEquals(1, calls.get());
    nanos.addAndGet(1);
    assertEquals(first, review.apply(token));
    assertEquals(2, calls.get());
    AtomicInteger failures = new AtomicInteger();
    PodTokenReview down =
        new PodTokenReview(
            r -> {
              failures.incrementAndGet();
              throw new KubernetesClientException("connection refused");
            },
            nanos::get);
    assertEquals(Identity.UNAVAILABLE, down.apply(token));
    assertEquals(Identity.UNAVAILABLE, down.apply(token));
    assertEquals(2, failures.get());
  }

  @Test
  @DisplayName("at most 50 reviews of new tokens at once: then BUSY until the budget refills")
  void budget() {
    AtomicInteger calls = new AtomicInteger();
    AtomicLong nanos = new AtomicLong();
    KubernetesClient client = LiveApiServer.client();
    PodTokenReview review =
        new PodTokenReview(
            r -> {
              calls.incrementAndGet();
              return client.authentication().v1().tokenReviews().create(r);
            },
            nanos::get);
    for (int i = 0; i < PodTokenReview.REVIEWS_BURST; i++) {
      assertEquals(Identity.INVALID, review.apply("made-up-" + i));
    }
    assertEquals(Identity.BUSY, review.apply("made-up-next"));
    assertEquals(Identity.INVALID, review.apply("made-up-0"), "cached answers need no budget");
    assertEquals(PodTokenReview.REVIEWS_BURST, calls.get());
    nanos.addAndGet(1_000_000_000L / (long) PodTokenReview.REVIEWS_PER_SECOND);
    assertEquals(Identity.INVALID, review.apply("made-up-next"));
  }

  @Test
  @DisplayName("a full cache is emptied before the next answer is kept")
  void cacheBound() {
    AtomicInteger calls = new AtomicInteger();
    PodTokenReview review =
        new PodTokenReview(
            r -> {
              calls.incrementAndGet();
              return new TokenReview();
            },
            () -> 0L,
            2);
    review.apply("one");
    review.apply("two");
    review.apply("one");
    assertEquals(2, calls.get(), "both kept");
    review.apply("three");
    review.apply("two");
    assertEquals(4, calls.get(), "the third answer emptied the full cache");
    review.apply("three");
    assertEquals(4, calls.get(), "three and two are kept now");
    review.apply("one");
    review.apply("three");
    assertEquals(6, calls.get(), "one found the cache full again and emptied it");
  }

  @Test
  @DisplayName("a review the API server does not authenticate, or for another audience, is INVALID")
  void answers() {
    assertEquals(Identity.INVALID, PodTokenReview.identity(null));
    assertEquals(Identity.INVALID, PodTokenReview.identity(new TokenReview()));
    TokenReview noAudience =
        new TokenReviewBuilder()
            .withNewStatus()
            .withAuthenticated(true)
            .withNewUser()
            .withUsername("system:serviceaccount:ns:pusher")
            .endUser()
            .endStatus()
            .build();
    assertEquals(Identity.INVALID, PodTokenReview.identity(noAudience));
    TokenReview other =
        new TokenReviewBuilder(noAudience).editStatus().withAudiences("other").endStatus().build();
    assertEquals(Identity.INVALID, PodTokenReview.identity(other));
    TokenReview account =
        new TokenReviewBuilder(noAudience)
            .editStatus()
            .withAudiences(TrainerStatusPush.AUDIENCE)
            .endStatus()
            .build();
    assertEquals(
        new Identity(Identity.Kind.POD_USER, "ns", "", ""), PodTokenReview.identity(account));
    TokenReview user =
        new TokenReviewBuilder(account)
            .editStatus()
            .editUser()
            .withUsername("alice")
            .endUser()
            .endStatus()
            .build();
    assertEquals(new Identity(Identity.Kind.POD_USER, "", "", ""), PodTokenReview.identity(user));
    TokenReview unauthenticated =
        new TokenReviewBuilder(account).editStatus().withAuthenticated(false).endStatus().build();
    assertEquals(Identity.INVALID, PodTokenReview.identity(unauthenticated));
    TokenReview nobody =
        new TokenReviewBuilder(account).editStatus().withUser(null).endStatus().build();
    assertEquals(Identity.INVALID, PodTokenReview.identity(nobody));
    TokenReview nullName =
        new TokenReviewBuilder(account)
            .editStatus()
            .editUser()
            .withUsername(null)
            .addToExtra(PodTokenReview.POD_NAME, Arrays.asList((String) null))
            .addToExtra(PodTokenReview.POD_UID, List.of())
            .endUser()
            .endStatus()
            .build();
    assertEquals(
        new Identity(Identity.Kind.POD_USER, "", "", ""), PodTokenReview.identity(nullName));
    TokenReview noColon =
        new TokenReviewBuilder(account)
            .editStatus()
            .editUser()
            .withUsername("system:serviceaccount:ns")
            .endUser()
            .endStatus()
            .build();
    assertEquals("", PodTokenReview.identity(noColon).namespace());
  }
}
