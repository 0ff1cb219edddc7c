# The wo container image (spec/operations.md, "Container image"): `wo run /app` on
# 0.0.0.0:8080, as an unprivileged user, refusing to start without a bearer token.
#
#   docker build -t wo .
#   docker run -p 8080:8080 -v "$PWD/myapp:/app" -e WO_TOKEN=... wo
#
# The app folder is mounted at /app and must be writable by uid 1000 (wo run writes its build
# to /app/.wo/build and, unless --db or [database] says otherwise, its data to /app/.wo/data).
# Its wo.toml must name the token's variable: [server] token_env = "WO_TOKEN".
#
# Two stages: the build stage has the compilers better-sqlite3 may need and the dev
# dependencies (TypeScript); the image gets only what `npm pack` ships (package.json `files`)
# and the production dependencies. Base images are pinned to the Node release CI tests with;
# pin them by digest (node:20.20.2-bookworm-slim@sha256:…) where your registry policy asks.

FROM node:20.20.2-bookworm AS build
WORKDIR /src
COPY . .
# npm ci runs the `prepare` script: tsc into dist/.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mkdir -p /opt/wo \
 && tar -xzf /tmp/wo-*.tgz -C /opt/wo --strip-components=1 \
 && cp -a node_modules /opt/wo/node_modules

FROM node:20.20.2-bookworm-slim
ENV NODE_ENV=production \
    WO_REQUIRE_TOKEN=1
COPY --from=build /opt/wo /opt/wo
# The node image's unprivileged user (uid 1000); /app is the mount point of the app folder.
RUN mkdir -p /app && chown node:node /app
USER node
WORKDIR /app
EXPOSE 8080
# /healthz needs no token; node is the only program the slim image is sure to have.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/opt/wo/bin/wo.js"]
CMD ["run", "/app", "--listen", "0.0.0.0:8080"]
