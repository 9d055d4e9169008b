// Runs the body of an actions/github-script@v7 step the way the action does (its src/main.ts and
// src/async-function.ts): the script becomes the body of an async function called with `require`,
// `github` (getOctokit from @actions/github 6, whose base URL is GITHUB_API_URL), `context` (from
// GITHUB_EVENT_PATH and GITHUB_REPOSITORY) and `core` (@actions/core 1). A thrown error fails the step.
// Usage: node harness.js SCRIPT_FILE   (token in INPUT_GITHUB-TOKEN, as the runner passes inputs)
const fs = require('fs');
const { getOctokit, context } = require('@actions/github');
const core = require('@actions/core');

const source = fs.readFileSync(process.argv[2], 'utf8');
const github = getOctokit(process.env['INPUT_GITHUB-TOKEN']);
const AsyncFunction = Object.getPrototypeOf(async () => null).constructor;
const fn = new AsyncFunction('require', 'github', 'octokit', 'context', 'core', source);
fn(require, github, github, context, core).then(
  () => process.exit(0),
  (error) => {
    console.error(`Unhandled error: ${error && error.message ? error.message : error}`);
    process.exit(1);
  });
