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
#
# Node 24, the newest LTS line, pinned to an exact release so that a rebuild gets the same Node
# (a digest could not be verified where this was written: pin one with `docker pull` if you need
# the byte-identical image).

# The package as npm pack ships it: the TypeScript compiled to dist/ (npm run build).
FROM node:24.21.0-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24.21.0-slim
WORKDIR /opt/payflow-conformance
ENV NODE_ENV=production

# The dependencies first, so that a change of the suite reuses their layer. Only the runtime
# ones: no TypeScript loader, @playwright/test runs the checks (no browser is needed).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist/ dist/

# Not root: the suite needs no privilege. /work is the node user's, for a run without a mount;
# a mounted directory must be writable by that user (uid 1000), or run with
# --user "$(id -u):$(id -g)", which also keeps the reports yours.
RUN mkdir /work && chown node:node /work
USER node
WORKDIR /work
ENTRYPOINT ["node", "/opt/payflow-conformance/dist/bin/cli.js"]
CMD ["--help"]
