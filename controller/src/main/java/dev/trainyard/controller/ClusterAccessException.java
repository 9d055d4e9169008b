package dev.trainyard.controller;

/** The cluster could not be reached or read (kubeconfig, context, network, permissions): exit code 3. */
public final class ClusterAccessException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ClusterAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
