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
ENV APP=${APP}
# --max-semi-space-size, and --initial-old-space-size for the apps that run the router: see
# "Node settings" in the README
CMD ["sh", "-c", "case \"$APP\" in router|all-in-one) OLD=--initial-old-space-size=512 ;; *) OLD= ;; esac; exec node --max-semi-space-size=64 $OLD dist/apps/${APP}/src/main.js"]
