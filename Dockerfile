# One image for every svc process in compose.yml (migrate, ingress, worker); the command picks the
# role. There is no build stage: the sources are compiled to JavaScript once, below, where bin/svc.js
# would otherwise compile them on first use (bin/compiled.js), which /app, not writable, forbids.
# Pinned to one release, as every image of compose.yml (test/unit/config/compose.test.ts).
FROM node:20.20.2-bookworm-slim
# What a fix needs besides node (docs/sandbox.md): git clones the repository and diffs the change
# (ca-certificates for https), bubblewrap isolates each sandbox command, prlimit (util-linux) limits
# it. corepack, for pnpm and yarn projects, comes with node.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates bubblewrap util-linux \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY services ./services
COPY plugins ./plugins
COPY shared ./shared
COPY schemas ./schemas
COPY migrations ./migrations
COPY sandbox-templates ./sandbox-templates
COPY scripts/seed-e2e.sql ./scripts/seed-e2e.sql
COPY tsconfig.json ./
RUN node bin/compile.js
USER node
ENTRYPOINT ["node", "bin/svc.js"]
