/**
 * The status controller: watches JobSets carrying Trainyard's provenance annotations, their pods
 * and Kueue Workloads, maps them to one run state, and posts it as a commit status on the source
 * commit.
 */
package dev.trainyard.controller;
