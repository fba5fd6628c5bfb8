# One image for every dockbridge process (gateway, worker, migrate, sandbox, the CLI); the command
# picks the role (see docker-compose.yml). Build: docker build -t dockbridge .
ARG NODE_VERSION=22

# Build: every dependency (swc is a dev dependency), then compile apps/ libs/ bench/ to dist/.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY .swcrc tsconfig.json ./
COPY apps apps
COPY libs libs
COPY bench bench
RUN npm run build

# Production dependencies only, installed from the same lockfile.
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Runtime: dist/, production node_modules, config/; owned by root, run as the unprivileged `node`
# user, which may write only the data folders below (named volumes copy this ownership).
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
# glibc otherwise raises its mmap threshold after the first large free and keeps the MiB-sized
# buffers of uploads (ssh2, pg) on its heap after use (bench/README.md, large files).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY config config
RUN mkdir -p /app/data /var/lib/dockbridge/sftp /var/lib/dockbridge/secrets \
 && chown node:node /app/data /var/lib/dockbridge/sftp /var/lib/dockbridge/secrets
USER node
# HTTP (gateway), SFTP (gateway), the sandbox platform.
EXPOSE 3000 2222 4010
CMD ["node", "--max-semi-space-size=32", "--expose-gc", "dist/apps/gateway/src/main.js"]
