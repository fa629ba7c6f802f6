FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The staff console is an npm workspace (console/): npm ci installs its packages too.
COPY console/package.json ./console/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# The embedded database (when DATABASE_URL is unset), and the mail and SMS outboxes without SMTP_URL or an
# SMS gateway: a directory the non-root user owns. Mount a volume there to keep it (docker run -v data:/app/.data).
ENV DATA_DIR=/app/.data
# glibc gives freed native memory back (src/launcher.ts sets this itself, by starting again, when it is unset).
ENV MALLOC_TRIM_THRESHOLD_=131072
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The staff console's build, served at /console (src/console).
COPY --from=build /app/console/dist ./console/dist
COPY package.json ./
COPY bin ./bin
COPY templates ./templates
COPY fixtures ./fixtures
RUN mkdir -p /app/.data && chown node:node /app/.data
EXPOSE 3000
USER node
# Readiness: the process answers and reaches its database (GET /health/ready is outside the /api/v2 base path).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The command line in a container: docker exec <container> node bin/cli.js <command> (or node dist/src/cli.js).
# SERVICE_ENTRY and SERVICE_NODE_FLAGS (src/service-process.ts): the one-file build with a young generation that
# fits a small container (docs/performance.md "Memory and start").
CMD ["node", "--max-semi-space-size=32", "dist/bundle/main.js"]
