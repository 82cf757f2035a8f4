# The conformance suite as an image. The entry point is the payflow-conformance command; the
# working directory /work is where the reports go (mount yours there) and where a .env, a
# conformance-waivers.yaml or an ACCOUNT_FIXTURE file is read from:
#
#   docker build -t payflow-conformance .
#   docker run --rm -e API_TOKEN -v "$PWD:/work" payflow-conformance run \
#     --base-url https://sandbox.example.com --counterparty-ref ACME-0001
#
# The token is passed as the variable API_TOKEN (-e API_TOKEN takes it from your environment),
# never as an argument. The exit status is the suite's: 0 passed, 1 the gate failed, 2 usage.
FROM node:20-slim

WORKDIR /opt/payflow-conformance
ENV NODE_ENV=production

# The dependencies first, so that a change of the suite reuses their layer. Only the runtime
# ones: tsx runs the TypeScript, @playwright/test the checks (no browser is needed).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# What the package publishes (package.json "files"; .dockerignore leaves out the rest).
COPY bin/ bin/
COPY config/ config/
COPY engine/ engine/
COPY exchange/ exchange/
COPY generators/ generators/
COPY oracles/*.ts oracles/
COPY probes/ probes/
COPY reporter/ reporter/
COPY servers/reference.ts servers/
COPY servers/reference/ servers/reference/
COPY spec/ spec/
COPY transport/ transport/
COPY tests/conformance/ tests/conformance/
COPY playwright.config.ts playwright.merge.config.ts ./

# Not root: the suite needs no privilege. /work is the node user's, for a run without a mount;
# a mounted directory must be writable by that user (uid 1000), or run with
# --user "$(id -u):$(id -g)", which also keeps the reports yours.
RUN mkdir /work && chown node:node /work
USER node
WORKDIR /work
ENTRYPOINT ["node", "/opt/payflow-conformance/bin/payflow-conformance.mjs"]
CMD ["--help"]
