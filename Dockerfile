# The simulator as a container: the packed package installed without its development dependencies, run as
# a non-root user on 0.0.0.0. The control plane's token comes from the environment:
#   docker build -t audience-research-sim .
#   docker run -p 4010:4010 -e SIM_CONTROL_TOKEN=change-me audience-research-sim
# src/cli/package.test.ts runs the same steps outside Docker (pack, install --omit=dev, serve).

FROM node:22-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /pkg

FROM node:22-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=pack /pkg/ /tmp/pkg/
RUN echo '{"name":"app","private":true}' > package.json \
  && npm install --omit=dev --no-audit --no-fund /tmp/pkg/*.tgz \
  && rm -rf /tmp/pkg && npm cache clean --force
# A first start, which answers one request and is stopped after three seconds, keeps V8's code for the
# simulator (start-up's and the request path's) in the package's dist/.compile-cache: made here, since the
# node user cannot write there, every container starts with it. Same node, same flags as the ENTRYPOINT, or
# V8 would refuse it.
RUN (timeout -s TERM 3 node node_modules/.bin/audience-research-sim serve --port 4099 --quiet & \
     node -e "const ask = () => fetch('http://127.0.0.1:4099/api/v1/auth/me').then((r) => r.arrayBuffer(), () => setTimeout(ask, 50)); ask()"; \
     wait; true) \
  && ls node_modules/audience-research-sim/dist/.compile-cache/cli-*.v8
USER node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:4010/_openapi.json').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["node", "node_modules/.bin/audience-research-sim"]
CMD ["serve", "--host", "0.0.0.0", "--port", "4010"]
