package dev.trainyard.controller.forge;

/**
 * The status a forge currently shows for one commit and context, in the forge's own state name
 * (e.g. GitHub "pending", GitLab "running") with its description and target URL.
 */
public record PostedStatus(String state, String description, String targetUrl) {

  public PostedStatus {
    description = description == null ? "" : description;
    targetUrl = targetUrl == null ? "" : targetUrl;
  }
}
