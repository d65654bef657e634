# One image for the three apps; APP picks which one starts (ingestor, router, stream, all-in-one).
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
ARG APP=all-in-one
# JSON log lines; the embedded log's files in /app/data (a volume), owned by the unprivileged
# user the apps run as; the ingestor alone serves /metrics and /health on METRICS_PORT
ENV APP=${APP} LOG_FORMAT=json DATA_DIR=/app/data PORT=8080 METRICS_PORT=9464
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
USER node
EXPOSE 8080 9464
# /health: the router's and the all-in-one's on PORT (log reachable, projection caught up and
# progressing), the stream app's on PORT, the ingestor's on METRICS_PORT
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 CMD ["sh", "-c", "case \"$APP\" in ingestor) P=$METRICS_PORT ;; *) P=$PORT ;; esac; node -e \"fetch('http://127.0.0.1:'+process.argv[1]+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))\" $P"]
# --max-semi-space-size, and --initial-old-space-size for the apps that run the router: see
# "Node settings" in the README
CMD ["sh", "-c", "case \"$APP\" in router|all-in-one) OLD=--initial-old-space-size=512 ;; *) OLD= ;; esac; exec node --max-semi-space-size=64 $OLD dist/apps/${APP}/src/main.js"]
