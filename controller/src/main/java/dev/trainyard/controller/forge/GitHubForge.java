package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * GitHub commit statuses (docs.github.com rest/commits/statuses): {@code POST
 * /repos/{owner}/{repo}/statuses/{sha}} with {@code Authorization: Bearer}, states
 * pending|success|failure|error (no running: RUNNING is sent as pending, the description says so),
 * description at most 140 characters, context at most 255; at most 1,000 statuses per SHA and context
 * (then 422), which is why the controller posts only changes. Read: {@code GET
 * /repos/{owner}/{repo}/commits/{ref}/status}, newest status per context (contexts are case-insensitive).
 */
public final class GitHubForge implements Forge {

    static final int DESCRIPTION = 140;
    private final URI api;
    private final Token token;
    private final RetryingTransport http;

    /** @param api the REST root, e.g. https://api.github.com or https://ghe.example/api/v3 */
    public GitHubForge(URI api, Token token, RetryingTransport http) {
        this.api = api;
        this.token = token;
        this.http = http;
    }

    @Override
    public String kind() {
        return "github";
    }

    @Override
    public String wireState(CommitState state) {
        return switch (state) {
            case PENDING, RUNNING -> "pending";
            case SUCCESS -> "success";
            case FAILURE -> "failure";
            case ERROR -> "error";
        };
    }

    @Override
    public Optional<PostedStatus> current(CommitRef commit, String context) throws ForgeException {
        URI uri = ApiPath.of(api, "/repos" + ApiPath.ownerRepo(commit.project()), Map.of("per_page", "100"),
                "commits", commit.sha(), "status");
        HttpAnswer a = http.send(kind(), new HttpCall("GET", uri, headers(), ""));
        return Json.objects(Json.object(Json.read(a.body())).get("statuses")).stream()
                .filter(s -> context.equalsIgnoreCase(Json.string(s, "context"))).findFirst()
                .map(s -> new PostedStatus(Json.string(s, "state"), Json.string(s, "description"),
                        Json.string(s, "target_url")));
    }

    @Override
    public PostOutcome post(CommitRef commit, CommitStatus status) throws ForgeException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", wireState(status.state()));
        body.put("context", Limits.context(status));
        body.put("description", Limits.description(status, DESCRIPTION));
        if (!status.targetUrl().isEmpty()) {
            body.put("target_url", status.targetUrl());
        }
        URI uri = ApiPath.of(api, "/repos" + ApiPath.ownerRepo(commit.project()), Map.of(), "statuses",
                commit.sha());
        http.send(kind(), new HttpCall("POST", uri, headers(), Json.write(body)));
        return PostOutcome.POSTED;
    }

    private Map<String, String> headers() {
        return Map.of("Authorization", "Bearer " + token.reveal(), "Accept", "application/vnd.github+json",
                "X-GitHub-Api-Version", "2022-11-28", "Content-Type", "application/json");
    }
}
